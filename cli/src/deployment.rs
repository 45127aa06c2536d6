//! Reaching a deployment through the official driver: connect with a time limit, and turn driver
//! errors into one clear sentence naming the cause (the console masks any credential in it).

use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use anyhow::{Context, anyhow};
use mongodb::error::ErrorKind;
use mongodb::options::{ClientOptions, ServerAddress};
use mongodb::{Client, Database};

use crate::args::ConnectArgs;
use crate::redact::redact_uri;

/// An open connection to one database of a deployment.
pub struct Deployment {
    /// The database the command works on.
    pub db: Database,
    /// The connection string with its password masked, for messages.
    pub shown_uri: String,
    /// How long any one step may take.
    pub timeout: Duration,
    /// The client's options, for direct connections to each member of a replica set
    /// (`$indexStats` answers only for the member it runs on).
    pub options: ClientOptions,
}

tokio::task_local! {
    /// What the work of a [`block_on`] waits for now, for the message if `--timeout` runs out.
    static WAITING_FOR: Arc<Mutex<String>>;
    /// The clients the work of a [`block_on`] made, shut down before its runtime goes.
    static CLIENTS: Arc<Mutex<Vec<Client>>>;
}

/// Records a client made by the work of a [`block_on`], so that it is shut down while the
/// runtime still runs: dropped with the runtime instead, the driver's background tasks can be
/// stopped halfway and panic on a closed channel (a backtrace on stderr at exit).
pub(crate) fn track(client: &Client) {
    let _ = CLIENTS.try_with(|clients| {
        clients
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(client.clone());
    });
}

/// Records what the work now waits for: said if `--timeout` runs out before it comes.
pub(crate) fn waiting_for(what: String) {
    let _ = WAITING_FOR.try_with(|w| *w.lock().unwrap_or_else(PoisonError::into_inner) = what);
}

/// Runs `work` on a fresh runtime, giving up after `timeout`.
///
/// # Errors
/// The work's own error, or a timeout naming the limit, what it waited for and what
/// `--timeout` changes.
pub fn block_on<T>(
    timeout: Duration,
    work: impl Future<Output = anyhow::Result<T>>,
) -> anyhow::Result<T> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let waiting = Arc::new(Mutex::new("the work to finish".to_owned()));
    let clients: Arc<Mutex<Vec<Client>>> = Arc::default();
    runtime.block_on(async {
        let work = CLIENTS.scope(
            Arc::clone(&clients),
            WAITING_FOR.scope(Arc::clone(&waiting), work),
        );
        let result = match tokio::time::timeout(timeout, work).await {
            Ok(result) => result,
            Err(_) => {
                let what = waiting
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .clone();
                Err(anyhow!("{}", timed_out(timeout, &what)))
            }
        };
        // The work and its handles are gone: close the clients now, without waiting for
        // anything the server still holds, and never longer than a moment.
        let made = std::mem::take(&mut *clients.lock().unwrap_or_else(PoisonError::into_inner));
        for client in made {
            let _ = tokio::time::timeout(Duration::from_secs(2), client.shutdown().immediate(true))
                .await;
        }
        result
    })
}

/// The message when `--timeout` runs out: the wait, what for, and what the flag changes.
fn timed_out(timeout: Duration, what: &str) -> String {
    format!(
        "timed out after {} waiting for {what}; --timeout sets this wait, for servers that can \
         still come up and commands that take long (a refused or unresolvable address fails at \
         once whatever it says)",
        show(timeout)
    )
}

/// A duration as the user would write it.
pub fn show(duration: Duration) -> String {
    if duration.subsec_millis() == 0 {
        format!("{}s", duration.as_secs())
    } else {
        format!("{}ms", duration.as_millis())
    }
}

/// Connects to the deployment named by `args` and picks the database.
///
/// # Errors
/// No URI, an unparsable URI, no database named, or a connection the driver refuses.
pub async fn connect(args: &ConnectArgs) -> anyhow::Result<Deployment> {
    let Some(uri) = args.uri.as_deref() else {
        anyhow::bail!("no deployment: pass --uri or set MONGODB_URI (or use --catalog FILE)");
    };
    let shown_uri = redact_uri(uri);
    waiting_for(format!("{shown_uri} to answer"));
    let mut options = ClientOptions::parse(uri)
        .await
        .map_err(|e| anyhow!("{}", explain(&e)))
        .with_context(|| format!("invalid connection string {shown_uri}"))?;
    let silent = reach_a_host(&options.hosts, args.timeout)
        .await
        .with_context(|| format!("cannot connect to {shown_uri}"))?;
    waiting_for(if silent.is_empty() {
        format!("a reply from {shown_uri} (a server to select, then each command's)")
    } else {
        format!(
            "{} to answer: no connection was accepted or refused, as when a firewall drops the \
             packets, the address is wrong or the host is down",
            silent.join(", ")
        )
    });
    options.app_name = Some("mongo-schema".to_owned());
    options.server_selection_timeout = Some(args.timeout);
    options.connect_timeout = Some(args.timeout);
    let db_name = match (&args.db, &options.default_database) {
        (Some(db), _) | (None, Some(db)) => db.clone(),
        (None, None) => {
            anyhow::bail!("no database: pass --db NAME or put it in the URI ({shown_uri})")
        }
    };
    let client = Client::with_options(options.clone())
        .map_err(|e| anyhow!("{}", explain(&e)))
        .with_context(|| format!("cannot connect to {shown_uri}"))?;
    track(&client);
    Ok(Deployment {
        db: client.database(&db_name),
        shown_uri,
        timeout: args.timeout,
        options,
    })
}

/// Fails at once when no seed host can ever answer: every name fails to resolve or every address
/// refuses the connection. The driver would retry those until `--timeout` (server selection
/// treats every failure as one that may pass), which costs a user the whole wait for a typo;
/// an address that accepts, or does not answer yet, is left to the driver and its wait (a
/// replica set electing a primary, a server starting).
///
/// Returns the address that neither accepted nor refused within the probe (packets dropped), if
/// one did: the driver still waits for it, and a timeout then names it.
///
/// # Errors
/// Each host with why it cannot be reached, when none can.
async fn reach_a_host(hosts: &[ServerAddress], timeout: Duration) -> anyhow::Result<Vec<String>> {
    let mut reasons = Vec::new();
    for host in hosts {
        let ServerAddress::Tcp { host, port } = host else {
            // A Unix socket path: the driver reports it well, at once.
            return Ok(Vec::new());
        };
        let target = format!("{host}:{}", port.unwrap_or(27017));
        let addresses = match tokio::net::lookup_host(target.as_str()).await {
            Ok(addresses) => addresses.collect::<Vec<_>>(),
            Err(e) => {
                reasons.push(format!("{target}: cannot resolve the host ({e})"));
                continue;
            }
        };
        for address in addresses {
            // A short probe: a host that answers slowly is the driver's to wait for.
            let probe = timeout.min(Duration::from_secs(2));
            let shown = if address.to_string() == target {
                target.clone()
            } else {
                format!("{target} ({address})")
            };
            let outcome = tokio::time::timeout(probe, tokio::net::TcpStream::connect(address))
                .await
                .map(|connected| connected.map(drop));
            match probe_outcome(outcome) {
                Probe::Answered => return Ok(Vec::new()),
                // Probing the other hosts would add their probes to the wait.
                Probe::Silent => return Ok(vec![shown]),
                Probe::Refused(e) => reasons.push(format!("{shown}: {}", connect_reason(&e))),
            }
        }
    }
    if reasons.is_empty() {
        return Ok(Vec::new());
    }
    anyhow::bail!(
        "{}; a longer --timeout would not change this",
        reasons.join("; ")
    )
}

/// What one probe of an address found.
#[derive(Debug)]
enum Probe {
    /// It accepted, or failed in a way that may pass: the driver's to wait for.
    Answered,
    /// No reply within the probe: packets dropped (or a slow path); the driver waits for it.
    Silent,
    /// A failure that waiting does not cure.
    Refused(std::io::Error),
}

/// Classifies a probe: a connection, or its error, or the probe's time running out.
fn probe_outcome(outcome: Result<std::io::Result<()>, tokio::time::error::Elapsed>) -> Probe {
    match outcome {
        Err(_) => Probe::Silent,
        Ok(Err(e)) if is_permanent(&e) => Probe::Refused(e),
        Ok(_) => Probe::Answered,
    }
}

/// A connection failure that waiting does not cure.
fn is_permanent(error: &std::io::Error) -> bool {
    use std::io::ErrorKind::*;
    matches!(
        error.kind(),
        ConnectionRefused | AddrNotAvailable | HostUnreachable | NetworkUnreachable
    )
}

fn connect_reason(error: &std::io::Error) -> String {
    match error.kind() {
        std::io::ErrorKind::ConnectionRefused => {
            "connection refused (nothing listens on that port)".to_owned()
        }
        _ => error.to_string(),
    }
}

/// One sentence for a driver error: what failed and why, without the driver's internals.
pub fn explain(error: &mongodb::error::Error) -> String {
    match error.kind.as_ref() {
        ErrorKind::Authentication { message, .. } => format!("authentication failed: {message}"),
        ErrorKind::ServerSelection { message, .. } => {
            format!("no reachable server: {}", first_cause(message))
        }
        ErrorKind::Command(command) if command.code == 13 || command.code == 18 => format!(
            "not authorized: {} ({}, code {})",
            command.message, command.code_name, command.code
        ),
        ErrorKind::Command(command) => format!(
            "{} ({}, code {})",
            command.message, command.code_name, command.code
        ),
        ErrorKind::Io(io) => format!("connection lost: {io}"),
        ErrorKind::DnsResolve { message, .. } => format!("cannot resolve the host: {message}"),
        ErrorKind::InvalidArgument { message, .. } => message.clone(),
        ErrorKind::InvalidTlsConfig { message, .. } => format!("TLS configuration: {message}"),
        _ => error.to_string(),
    }
}

/// The server selection message lists the whole topology; its first `Error:` is the cause.
fn first_cause(message: &str) -> String {
    if let Some(start) = message.find("Error: ") {
        let cause = &message[start + "Error: ".len()..];
        let cause = cause.strip_prefix("Kind: ").unwrap_or(cause);
        let end = cause
            .find(", labels")
            .or_else(|| cause.find(" }"))
            .unwrap_or(cause.len());
        return cause[..end].trim().to_owned();
    }
    message
        .split(". Topology")
        .next()
        .unwrap_or(message)
        .to_owned()
}

/// Whether a driver error is the server saying the namespace does not exist (code 26).
pub fn is_namespace_not_found(error: &mongodb::error::Error) -> bool {
    matches!(error.kind.as_ref(), ErrorKind::Command(c) if c.code == 26)
}

/// Whether a driver error is the server refusing a field it does not know (an older release):
/// IDL's unknown-field error (40415), or the generic parse and value errors older commands give.
pub fn is_unknown_field(error: &mongodb::error::Error) -> bool {
    matches!(error.kind.as_ref(), ErrorKind::Command(c) if matches!(c.code, 40415 | 9 | 2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_selection_message_is_reduced_to_its_cause() {
        let message = "Server selection timeout: No available servers. Topology: { Type: Unknown, \
                       Servers: [ { Address: localhost:1, Type: Unknown, Error: Kind: I/O error: \
                       Connection refused (os error 111), labels: {} } ] }";
        assert_eq!(
            first_cause(message),
            "I/O error: Connection refused (os error 111)"
        );
    }

    fn io(kind: std::io::ErrorKind) -> Result<std::io::Result<()>, tokio::time::error::Elapsed> {
        Ok(Err(std::io::Error::from(kind)))
    }

    /// Issue 16 item 4: refused and unreachable fail at once, a dropped packet is waited for.
    #[test]
    fn probes_are_classified_by_whether_waiting_can_help() {
        use std::io::ErrorKind::*;
        for kind in [
            ConnectionRefused,
            AddrNotAvailable,
            HostUnreachable,
            NetworkUnreachable,
        ] {
            assert!(
                matches!(probe_outcome(io(kind)), Probe::Refused(_)),
                "{kind:?}"
            );
        }
        for kind in [TimedOut, ConnectionReset, Interrupted] {
            assert!(
                matches!(probe_outcome(io(kind)), Probe::Answered),
                "{kind:?}"
            );
        }
        assert!(matches!(probe_outcome(Ok(Ok(()))), Probe::Answered));
        let elapsed = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap()
            .block_on(async {
                tokio::time::timeout(
                    Duration::ZERO,
                    std::future::pending::<std::io::Result<()>>(),
                )
                .await
            });
        assert!(matches!(probe_outcome(elapsed), Probe::Silent));
    }

    /// A timeout names what the work waited for last, and what `--timeout` changes.
    #[test]
    fn a_timeout_says_what_it_waited_for() {
        let result: anyhow::Result<()> = block_on(Duration::from_millis(20), async {
            waiting_for("10.255.255.1:27017 to answer".to_owned());
            std::future::pending().await
        });
        let message = result.unwrap_err().to_string();
        assert!(
            message.starts_with("timed out after 20ms waiting for 10.255.255.1:27017 to answer;"),
            "{message}"
        );
        assert!(message.contains("--timeout sets this wait"), "{message}");
        assert!(message.contains("a refused or unresolvable address fails at once"));
    }

    /// A refused port fails before any wait, whatever `--timeout` says.
    #[test]
    fn a_refused_port_fails_at_once_with_a_long_timeout() {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let args = ConnectArgs {
            uri: Some(format!("mongodb://127.0.0.1:{port}/shop")),
            db: None,
            timeout: Duration::from_secs(600),
        };
        let started = std::time::Instant::now();
        let error = block_on(args.timeout, connect(&args))
            .err()
            .expect("refused");
        assert!(
            format!("{error:#}").contains("connection refused"),
            "{error:#}"
        );
        // Not a timing assert on speed: only that it did not wait for the timeout.
        assert!(started.elapsed() < args.timeout);
    }
}
