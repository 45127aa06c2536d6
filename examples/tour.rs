//! A guided run of the `mongo-schema` command for the catalog examples (`order_views`,
//! `product_search`): each step prints the command as a user types it, what it printed and its
//! exit code, and the tour fails when a step does not end as the example says it does.

use mongo_schema::spec::CollectionSpec;
use mongo_schema_cli::{Console, Outcome};

/// What the tour's commands show in place of the deployment's URI.
pub const URI: &str = "$URI";

/// A tour of the `mongo-schema` command on an example's collections, printed to `console`.
pub struct Tour<'a> {
    console: &'a mut Console,
    collections: Vec<CollectionSpec>,
    uri: String,
    wrong: Vec<String>,
}

impl<'a> Tour<'a> {
    /// A tour of `collections`, whose commands reach the deployment at `uri` (shown as `$URI`).
    pub fn new(console: &'a mut Console, collections: Vec<CollectionSpec>, uri: &str) -> Self {
        Tour {
            console,
            collections,
            uri: uri.to_owned(),
            wrong: Vec::new(),
        }
    }

    /// Points the following commands at the deployment at `uri` (still shown as `$URI`).
    pub fn switch_to(&mut self, uri: &str) {
        uri.clone_into(&mut self.uri);
    }

    /// Prints `text` as it is.
    pub fn out(&mut self, text: &str) {
        self.console.out(text);
        if !text.ends_with('\n') {
            self.console.out("\n");
        }
    }

    /// Prints a step's heading, after a blank line.
    pub fn heading(&mut self, text: &str) {
        self.console.out(&format!("\n// {text}\n"));
    }

    /// Runs `mongo-schema ARGS` on the tour's collections, `$URI` standing for the deployment;
    /// prints the command, its output and its exit code, and records a step that does not end
    /// with `expected`.
    pub fn run(&mut self, args: &[&str], expected: Outcome) -> String {
        let collections = self.collections.clone();
        self.run_on(&collections, args, expected)
    }

    /// As [`Tour::run`], with only `collections` linked (one part of the example).
    pub fn run_on(
        &mut self,
        collections: &[CollectionSpec],
        args: &[&str],
        expected: Outcome,
    ) -> String {
        let mut captured = Console::captured("");
        let mut argv = vec!["mongo-schema".to_owned()];
        argv.extend(args.iter().map(|a| a.replace(URI, &self.uri)));
        let outcome = mongo_schema_cli::run(argv, Some(collections), &mut captured);
        let printed =
            format!("{}{}", captured.stdout_text(), captured.stderr_text()).replace(&self.uri, URI);
        self.console
            .out(&format!("$ mongo-schema {}\n", args.join(" ")));
        self.out(&printed);
        self.console.out(&format!("(exit {})\n", outcome.code()));
        if outcome != expected {
            self.wrong.push(format!(
                "`mongo-schema {}` exited {}, the example expects {}",
                args.join(" "),
                outcome.code(),
                expected.code()
            ));
        }
        printed
    }

    /// Records a step that went wrong outside a command (a sample document judged otherwise).
    pub fn wrong(&mut self, what: String) {
        self.wrong.push(what);
    }

    /// Ends the tour: [`Outcome::Clean`] when every step ended as expected; otherwise each
    /// surprise on stderr and [`Outcome::Failed`].
    pub fn finish(self) -> Outcome {
        if self.wrong.is_empty() {
            return Outcome::Clean;
        }
        for wrong in &self.wrong {
            self.console.err(&format!("error: {wrong}\n"));
        }
        Outcome::Failed
    }
}
