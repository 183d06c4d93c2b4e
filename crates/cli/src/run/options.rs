//! `redsim run`'s options: the scenario, its seed and parameter overrides, the outputs, and a real server to run against; and the exit status commands return.

use redsim_sim::params::parse_seed;

use crate::remote::Target;

/// Seed when `--seed` is not given; the browser library uses the same one.
pub const DEFAULT_SEED: u64 = 1;

/// What the caller should do after a command: exit with this status.
pub type Status = u8;

/// Options of `redsim run`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunOptions {
    pub id: String,
    pub seed: u64,
    pub overrides: Vec<(String, String)>,
    /// `Some(None)`: JSON to stdout; `Some(Some(path))`: to a file.
    pub json: Option<Option<String>>,
    pub svg: Option<String>,
    pub check: bool,
    /// `--against`: the real server the scenario's Redis traffic also goes to.
    pub against: Option<Target>,
    /// `--speed`: wall-clock pacing as a multiple of virtual time.
    pub speed: f64,
}

impl RunOptions {
    /// Parses the arguments after `run`.
    pub fn from_args(args: &[String]) -> Result<RunOptions, String> {
        let mut o = RunOptions {
            seed: DEFAULT_SEED,
            speed: 1.0,
            ..RunOptions::default()
        };
        let mut speed_given = false;
        let mut id: Option<String> = None;
        let mut i = 0;
        let value = |i: usize, name: &str| -> Result<&String, String> {
            args.get(i + 1)
                .ok_or_else(|| format!("run: {name} needs a value"))
        };
        while i < args.len() {
            let a = args[i].as_str();
            match a {
                "--seed" => {
                    let v = value(i, "--seed")?;
                    o.seed = parse_seed(v).ok_or_else(|| {
                        format!("run: --seed '{v}' is not a number (decimal or 0x hex)")
                    })?;
                    i += 1;
                }
                "--set" => {
                    o.overrides.push(parse_set(value(i, "--set")?)?);
                    i += 1;
                }
                "--svg" => {
                    o.svg = Some(value(i, "--svg")?.clone());
                    i += 1;
                }
                "--json" => {
                    // A file follows only once the id is known, so `run --json id` still works.
                    match args.get(i + 1) {
                        Some(f) if id.is_some() && !f.starts_with("--") => {
                            o.json = Some(if f == "-" { None } else { Some(f.clone()) });
                            i += 1;
                        }
                        _ => o.json = Some(None),
                    }
                }
                "--check" => o.check = true,
                "--against" => {
                    o.against = Some(Target::parse(value(i, "--against")?)?);
                    i += 1;
                }
                "--speed" => {
                    o.speed = parse_speed(value(i, "--speed")?)?;
                    speed_given = true;
                    i += 1;
                }
                _ => {
                    if let Some(v) = a.strip_prefix("--seed=") {
                        o.seed = parse_seed(v).ok_or_else(|| {
                            format!("run: --seed '{v}' is not a number (decimal or 0x hex)")
                        })?;
                    } else if let Some(v) = a.strip_prefix("--set=") {
                        o.overrides.push(parse_set(v)?);
                    } else if let Some(v) = a.strip_prefix("--json=") {
                        o.json = Some(if v == "-" { None } else { Some(v.to_string()) });
                    } else if let Some(v) = a.strip_prefix("--svg=") {
                        o.svg = Some(v.to_string());
                    } else if let Some(v) = a.strip_prefix("--against=") {
                        o.against = Some(Target::parse(v)?);
                    } else if let Some(v) = a.strip_prefix("--speed=") {
                        o.speed = parse_speed(v)?;
                        speed_given = true;
                    } else if a.starts_with('-') {
                        return Err(format!("run: unknown option '{a}'"));
                    } else if id.is_none() {
                        id = Some(a.to_string());
                    } else {
                        return Err(format!(
                            "run: unexpected argument '{a}' (parameters go with --set {a})"
                        ));
                    }
                }
            }
            i += 1;
        }
        o.id = id.ok_or("run: which scenario? (`redsim scenarios` lists them)")?;
        if speed_given && o.against.is_none() {
            return Err("run: --speed paces a run --against a server; give --against too".into());
        }
        Ok(o)
    }
}

fn parse_speed(v: &str) -> Result<f64, String> {
    match v.parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 && s <= 1e6 => Ok(s),
        _ => Err(format!("run: --speed '{v}' should be a number above 0")),
    }
}

fn parse_set(v: &str) -> Result<(String, String), String> {
    match v.split_once('=') {
        Some((n, val)) if !n.trim().is_empty() => Ok((n.trim().to_string(), val.to_string())),
        _ => Err(format!("run: --set '{v}' should be name=value")),
    }
}
