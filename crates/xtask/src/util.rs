//! Helpers shared by the tasks: the workspace root, the cargo target dir, running commands with their output streamed, finding programs on PATH.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace root (two levels above this crate's manifest).
pub fn root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.ancestors()
        .nth(2)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| here.to_path_buf())
}

/// The cargo that runs us (`cargo xtask` sets `CARGO`), else the one on PATH.
pub fn cargo() -> Command {
    let mut c = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    c.current_dir(root());
    c
}

/// Runs `cmd` with inherited stdio (output streams as it comes); an error
/// names the command if it could not start or exited non-zero.
pub fn run(cmd: &mut Command) -> Result<(), String> {
    let shown = show(cmd);
    println!("$ {shown}");
    let status = cmd
        .status()
        .map_err(|e| format!("could not run `{shown}`: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`{shown}` failed ({status})"))
    }
}

/// Runs `cmd` and returns what it printed; its errors stream through, and
/// an error names the command if it could not start or exited non-zero.
pub fn output(cmd: &mut Command) -> Result<Vec<u8>, String> {
    let shown = show(cmd);
    println!("$ {shown}");
    let out = cmd
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|e| format!("could not run `{shown}`: {e}"))?;
    if out.status.success() {
        Ok(out.stdout)
    } else {
        Err(format!("`{shown}` failed ({})", out.status))
    }
}

/// True if `cmd` runs and exits 0, its output discarded.
pub fn succeeds(cmd: &mut Command) -> bool {
    cmd.stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The command line, for messages.
fn show(cmd: &Command) -> String {
    let mut s = cmd.get_program().to_string_lossy().into_owned();
    for a in cmd.get_args() {
        s.push(' ');
        s.push_str(&a.to_string_lossy());
    }
    s
}

/// Where `name` is on PATH, if anywhere.
pub fn which(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// Cargo's target directory as cargo itself resolves it (`CARGO_TARGET_DIR`,
/// `build.target-dir` in a config file, or `<root>/target`).
pub fn target_dir() -> Result<PathBuf, String> {
    let out = cargo()
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|e| format!("could not run cargo metadata: {e}"))?;
    if !out.status.success() {
        return Err("cargo metadata failed".into());
    }
    let json = String::from_utf8_lossy(&out.stdout);
    json_string_field(&json, "target_directory")
        .map(PathBuf::from)
        .ok_or_else(|| "cargo metadata gave no target_directory".into())
}

/// The string value of the first `"field":"…"` in `json`, unescaped. Enough
/// for cargo metadata's output without pulling a JSON parser into xtask.
pub fn json_string_field(json: &str, field: &str) -> Option<String> {
    let key = format!("\"{field}\":\"");
    let start = json.find(&key)? + key.len();
    let mut out = String::new();
    let mut chars = json[start..].chars();
    loop {
        match chars.next()? {
            '"' => return Some(out),
            '\\' => match chars.next()? {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                'r' => out.push('\r'),
                'u' => {
                    let hex: String = chars.by_ref().take(4).collect();
                    out.push(char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?);
                }
                c => out.push(c),
            },
            c => out.push(c),
        }
    }
}

/// Bytes as KiB with one decimal.
pub fn kib(n: u64) -> String {
    format!("{:.1} KiB", n as f64 / 1024.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_string_fields_with_escapes() {
        let j = r#"{"packages":[],"target_directory":"C:\\work\\t \"x\" \u00e9","version":1}"#;
        assert_eq!(
            json_string_field(j, "target_directory").as_deref(),
            Some("C:\\work\\t \"x\" é")
        );
        assert_eq!(json_string_field(j, "missing"), None);
        assert_eq!(json_string_field(r#"{"a":"unterminated"#, "a"), None);
    }

    #[test]
    fn root_holds_the_workspace_manifest() {
        let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
        assert!(manifest.contains("[workspace]"));
    }
}
