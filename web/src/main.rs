//! The console module's entry point: the engine, the console widgets and the page shell (see the library's documentation for the split).

fn main() {
    redsim_web::start_console();
}
