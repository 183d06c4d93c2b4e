//! The lab module's entry point: scenarios, cluster, topology and lessons, loaded on demand by the page (see the library's documentation for the split).

fn main() {
    redsim_web::start_lab();
}
