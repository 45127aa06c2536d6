//! A binary that never names the library crate: the linker drops the library's registrations,
//! so it sees no collection, and every command that needs declarations must say so (exit 2).

fn main() -> std::process::ExitCode {
    mongo_schema_cli::main_registered()
}
