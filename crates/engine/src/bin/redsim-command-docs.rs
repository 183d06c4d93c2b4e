//! Prints the command docs (syntax line and summary of every command and subcommand) as `cmd::doctext` installs them: `cargo xtask dist` writes them to `dist/redsim-docs.txt` for the light console.

fn main() {
    print!(
        "{}",
        redsim_engine::cmd::doctext::render(&redsim_engine::cmd::REGISTRY)
    );
}
