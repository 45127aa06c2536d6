//! Credentials never reach any output: connection strings are shown with their password masked,
//! and every line the command writes is scrubbed of the secrets it was given.

/// Query options of a connection string whose values are secrets.
const SECRET_OPTIONS: &[&str] = &[
    "authmechanismproperties",
    "tlscertificatekeyfilepassword",
    "sslpemkeypassword",
    "password",
];

/// The mask written in place of a secret.
pub const MASK: &str = "****";

/// Where the user information of something that looks like a connection string starts, valid
/// or not: after `mongodb://`, and after the mistyped forms of that scheme (`mongodb:/`,
/// `mongodb//`, `mongodb:`), after any other `scheme://`, or at the start when there is no
/// scheme at all (`ann:pw@host`). `None` when there is no `@` before the options, so no
/// credentials.
fn userinfo_start(uri: &str) -> Option<usize> {
    let before_query = uri.split('?').next().unwrap_or(uri);
    let at = before_query.rfind('@')?;
    let region = &before_query[..at];
    let lower = region.to_ascii_lowercase();
    let start = if let Some(rest) = lower
        .strip_prefix("mongodb+srv")
        .or(lower.strip_prefix("mongodb"))
    {
        let separators = rest.len() - rest.trim_start_matches([':', '/']).len();
        region.len() - rest.len() + separators
    } else if let Some(i) = region.find("://") {
        i + 3
    } else {
        0
    };
    Some(start)
}

/// Masks the password and secret options of a MongoDB connection string, and of anything that
/// looks like one (a mistyped scheme, or none: `mongodb:/ann:pw@host`, `ann:pw@host`).
///
/// `mongodb://user:pass@host/db?authSource=admin` becomes `mongodb://user:****@host/db?authSource=admin`.
/// A string without credentials is returned unchanged.
///
/// ```
/// use mongo_schema_cli::redact::redact_uri;
/// assert_eq!(redact_uri("mongodb://ann:s3cret@db.example:27017/shop"), "mongodb://ann:****@db.example:27017/shop");
/// assert_eq!(redact_uri("mongodb:/ann:s3cret@db.example/shop"), "mongodb:/ann:****@db.example/shop");
/// ```
pub fn redact_uri(uri: &str) -> String {
    let Some(scheme_end) = userinfo_start(uri).or_else(|| uri.find("://").map(|i| i + 3)) else {
        return uri.to_owned();
    };
    let (scheme, rest) = uri.split_at(scheme_end);
    let (before_query, query) = match rest.find('?') {
        Some(q) => (&rest[..q], Some(&rest[q + 1..])),
        None => (rest, None),
    };
    // The password may itself contain '@' or '/' when its writer forgot to escape it,
    // so the user information ends at the last '@' before the options.
    let mut out = String::from(scheme);
    match before_query.rfind('@') {
        Some(at) => {
            let userinfo = &before_query[..at];
            match userinfo.find(':') {
                Some(colon) => {
                    out.push_str(&userinfo[..colon]);
                    out.push(':');
                    out.push_str(MASK);
                }
                None => out.push_str(userinfo),
            }
            out.push_str(&before_query[at..]);
        }
        None => out.push_str(before_query),
    }
    if let Some(query) = query {
        out.push('?');
        let options: Vec<String> = query
            .split('&')
            .map(|option| match option.split_once('=') {
                Some((name, _)) if SECRET_OPTIONS.contains(&name.to_ascii_lowercase().as_str()) => {
                    format!("{name}={MASK}")
                }
                _ => option.to_owned(),
            })
            .collect();
        out.push_str(&options.join("&"));
    }
    out
}

/// The secrets inside a connection string: the whole string, its password (as written and
/// percent-decoded) and the values of secret options. Empty when it holds none.
pub fn secrets_of(uri: &str) -> Vec<String> {
    let redacted = redact_uri(uri);
    if redacted == uri {
        return Vec::new();
    }
    let mut secrets = vec![uri.to_owned()];
    if let Some(scheme_end) = userinfo_start(uri).or_else(|| uri.find("://").map(|i| i + 3)) {
        let rest = &uri[scheme_end..];
        let before_query = rest.split('?').next().unwrap_or(rest);
        if let Some(at) = before_query.rfind('@')
            && let Some((_, password)) = before_query[..at].split_once(':')
            && !password.is_empty()
        {
            secrets.push(password.to_owned());
            let decoded = percent_decode(password);
            if decoded != password {
                secrets.push(decoded);
            }
        }
        if let Some((_, query)) = rest.split_once('?') {
            for option in query.split('&') {
                if let Some((name, value)) = option.split_once('=')
                    && SECRET_OPTIONS.contains(&name.to_ascii_lowercase().as_str())
                    && !value.is_empty()
                {
                    secrets.push(value.to_owned());
                    secrets.push(percent_decode(value));
                }
            }
        }
    }
    // Longest first, so that a secret containing another is replaced whole.
    secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
    secrets.dedup();
    secrets
}

/// Replaces every occurrence of each secret in `text` by the mask (the whole URI by its redacted form).
pub fn scrub(text: &str, secrets: &[String]) -> String {
    let mut out = text.to_owned();
    for secret in secrets {
        if secret.is_empty() || !out.contains(secret.as_str()) {
            continue;
        }
        let replacement = if secret.contains("://") {
            redact_uri(secret)
        } else {
            MASK.to_owned()
        };
        out = out.replace(secret.as_str(), &replacement);
    }
    out
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Ok(hex) = std::str::from_utf8(&bytes[i + 1..i + 3])
            && let Ok(byte) = u8::from_str_radix(hex, 16)
        {
            out.push(byte);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn password_is_masked_and_user_kept() {
        assert_eq!(
            redact_uri("mongodb://ann:s3cret@h1:27017,h2/shop?authSource=admin"),
            "mongodb://ann:****@h1:27017,h2/shop?authSource=admin"
        );
        assert_eq!(
            redact_uri("mongodb+srv://ann:p%40ss@cluster0.example.net/"),
            "mongodb+srv://ann:****@cluster0.example.net/"
        );
    }

    #[test]
    fn unescaped_at_in_password_is_still_masked() {
        assert_eq!(
            redact_uri("mongodb://ann:p@ss/w@host/db"),
            "mongodb://ann:****@host/db"
        );
    }

    #[test]
    fn mistyped_schemes_and_no_scheme_are_masked_too() {
        for (uri, shown) in [
            ("mongodb:/ann:pw1@host/db", "mongodb:/ann:****@host/db"),
            ("mongodb//ann:pw1@host/db", "mongodb//ann:****@host/db"),
            ("mongodb:ann:pw1@host/db", "mongodb:ann:****@host/db"),
            ("ann:pw1@host/db", "ann:****@host/db"),
            ("mongo://ann:pw1@host/db", "mongo://ann:****@host/db"),
            ("MONGODB+SRV:/ann:pw1@host", "MONGODB+SRV:/ann:****@host"),
        ] {
            assert_eq!(redact_uri(uri), shown);
            assert!(secrets_of(uri).contains(&"pw1".to_owned()), "{uri}");
        }
    }

    #[test]
    fn uri_without_credentials_is_unchanged() {
        assert_eq!(
            redact_uri("mongodb://localhost:27017"),
            "mongodb://localhost:27017"
        );
        assert_eq!(
            redact_uri("mongodb://x509user@host/?authMechanism=MONGODB-X509"),
            "mongodb://x509user@host/?authMechanism=MONGODB-X509"
        );
        assert!(secrets_of("mongodb://localhost").is_empty());
    }

    #[test]
    fn secret_options_are_masked() {
        assert_eq!(
            redact_uri(
                "mongodb://h/?authMechanism=MONGODB-AWS&authMechanismProperties=AWS_SESSION_TOKEN:abc"
            ),
            "mongodb://h/?authMechanism=MONGODB-AWS&authMechanismProperties=****"
        );
    }

    #[test]
    fn scrub_removes_password_in_any_form() {
        let uri = "mongodb://ann:p%40ss@host/db";
        let secrets = secrets_of(uri);
        let text = format!("failed: {uri}; auth p@ss rejected; raw p%40ss");
        let clean = scrub(&text, &secrets);
        assert_eq!(
            clean,
            "failed: mongodb://ann:****@host/db; auth **** rejected; raw ****"
        );
    }
}
