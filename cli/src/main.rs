//! `mongo-schema`: parse arguments, run, turn the outcome into an exit code.

fn main() -> std::process::ExitCode {
    mongo_schema_cli::main()
}
