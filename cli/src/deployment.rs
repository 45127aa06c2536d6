//! Reaching a deployment through the official driver: connect with a time limit, and turn driver
//! errors into one clear sentence naming the cause (the console masks any credential in it).

use std::future::Future;
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
}

/// Runs `work` on a fresh runtime, giving up after `timeout`.
///
/// # Errors
/// The work's own error, or a timeout naming the limit.
pub fn block_on<T>(
    timeout: Duration,
    work: impl Future<Output = anyhow::Result<T>>,
) -> anyhow::Result<T> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async {
        match tokio::time::timeout(timeout, work).await {
            Ok(result) => result,
            Err(_) => Err(anyhow!(
                "timed out after {} (raise it with --timeout)",
                show(timeout)
            )),
        }
    })
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
    let mut options = ClientOptions::parse(uri)
        .await
        .map_err(|e| anyhow!("{}", explain(&e)))
        .with_context(|| format!("invalid connection string {shown_uri}"))?;
    reach_a_host(&options.hosts, args.timeout)
        .await
        .with_context(|| format!("cannot connect to {shown_uri}"))?;
    options.app_name = Some("mongo-schema".to_owned());
    options.server_selection_timeout = Some(args.timeout);
    options.connect_timeout = Some(args.timeout);
    let db_name = match (&args.db, &options.default_database) {
        (Some(db), _) | (None, Some(db)) => db.clone(),
        (None, None) => {
            anyhow::bail!("no database: pass --db NAME or put it in the URI ({shown_uri})")
        }
    };
    let client = Client::with_options(options)
        .map_err(|e| anyhow!("{}", explain(&e)))
        .with_context(|| format!("cannot connect to {shown_uri}"))?;
    Ok(Deployment {
        db: client.database(&db_name),
        shown_uri,
        timeout: args.timeout,
    })
}

/// Fails at once when no seed host can ever answer: every name fails to resolve or every address
/// refuses the connection. The driver would retry those until `--timeout` (server selection
/// treats every failure as one that may pass), which costs a user the whole wait for a typo;
/// an address that accepts, or does not answer yet, is left to the driver and its wait (a
/// replica set electing a primary, a server starting).
///
/// # Errors
/// Each host with why it cannot be reached, when none can.
async fn reach_a_host(hosts: &[ServerAddress], timeout: Duration) -> anyhow::Result<()> {
    let mut reasons = Vec::new();
    for host in hosts {
        let ServerAddress::Tcp { host, port } = host else {
            // A Unix socket path: the driver reports it well, at once.
            return Ok(());
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
            match tokio::time::timeout(probe, tokio::net::TcpStream::connect(address)).await {
                Ok(Err(e)) if is_permanent(&e) => {
                    let shown = if address.to_string() == target {
                        target.clone()
                    } else {
                        format!("{target} ({address})")
                    };
                    reasons.push(format!("{shown}: {}", connect_reason(&e)));
                }
                _ => return Ok(()),
            }
        }
    }
    if reasons.is_empty() {
        return Ok(());
    }
    anyhow::bail!(
        "{}; a longer --timeout would not change this",
        reasons.join("; ")
    )
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
}
