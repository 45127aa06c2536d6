//! Command errors as the server reports them: `{ok: 0, errmsg, code, codeName}`.

use bson::{Document, doc};

/// A failed command, turned into the server's error reply by [`CommandError::to_reply`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CommandError {
    pub(crate) code: i32,
    pub(crate) message: String,
    /// Extra reply fields (e.g. `errInfo`), appended after `codeName`.
    pub(crate) extra: Document,
}

impl CommandError {
    pub(crate) fn new(code: i32, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            extra: Document::new(),
        }
    }

    /// The reply document: `{ok: 0, errmsg, code, codeName, ...extra}`.
    ///
    /// Source: the manual's "Error Codes" page and `src/mongo/base/error_codes.yml`.
    pub(crate) fn to_reply(&self) -> Document {
        let mut reply = doc! {
            "ok": 0.0,
            "errmsg": self.message.as_str(),
            "code": self.code,
            "codeName": code_name(self.code),
        };
        reply.extend(self.extra.clone());
        reply
    }
}

/// Error codes from the server's `src/mongo/base/error_codes.yml`.
pub(crate) mod code {
    pub(crate) const BAD_VALUE: i32 = 2;
    pub(crate) const FAILED_TO_PARSE: i32 = 9;
    pub(crate) const UNAUTHORIZED: i32 = 13;
    pub(crate) const TYPE_MISMATCH: i32 = 14;
    pub(crate) const NAMESPACE_NOT_FOUND: i32 = 26;
    pub(crate) const INDEX_NOT_FOUND: i32 = 27;
    pub(crate) const CURSOR_NOT_FOUND: i32 = 43;
    pub(crate) const NAMESPACE_EXISTS: i32 = 48;
    pub(crate) const COMMAND_NOT_FOUND: i32 = 59;
    pub(crate) const CANNOT_CREATE_INDEX: i32 = 67;
    pub(crate) const INVALID_OPTIONS: i32 = 72;
    pub(crate) const INVALID_NAMESPACE: i32 = 73;
    pub(crate) const INDEX_OPTIONS_CONFLICT: i32 = 85;
    pub(crate) const INDEX_KEY_SPECS_CONFLICT: i32 = 86;
    pub(crate) const DOCUMENT_VALIDATION_FAILURE: i32 = 121;
    pub(crate) const INVALID_INDEX_SPECIFICATION_OPTION: i32 = 197;
    pub(crate) const DUPLICATE_KEY: i32 = 11000;
    /// IDL: "BSON field '...' is missing but a required field".
    pub(crate) const IDL_MISSING_FIELD: i32 = 40414;
    /// IDL: "BSON field '...' is an unknown field."
    pub(crate) const IDL_UNKNOWN_FIELD: i32 = 40415;
}

/// The `codeName` the server sends beside `code` (`src/mongo/base/error_codes.yml`); codes
/// raised by a source location (`uassert(40414, ...)`) are named `Location<code>`.
pub(crate) fn code_name(code: i32) -> String {
    let name = match code {
        1 => "InternalError",
        2 => "BadValue",
        4 => "NoSuchKey",
        6 => "HostUnreachable",
        7 => "HostNotFound",
        8 => "UnknownError",
        9 => "FailedToParse",
        11 => "UserNotFound",
        13 => "Unauthorized",
        14 => "TypeMismatch",
        18 => "AuthenticationFailed",
        20 => "IllegalOperation",
        26 => "NamespaceNotFound",
        27 => "IndexNotFound",
        43 => "CursorNotFound",
        48 => "NamespaceExists",
        50 => "MaxTimeMSExpired",
        59 => "CommandNotFound",
        67 => "CannotCreateIndex",
        72 => "InvalidOptions",
        73 => "InvalidNamespace",
        85 => "IndexOptionsConflict",
        86 => "IndexKeySpecsConflict",
        89 => "NetworkTimeout",
        91 => "ShutdownInProgress",
        96 => "OperationFailed",
        115 => "CommandNotSupported",
        121 => "DocumentValidationFailure",
        166 => "CommandNotSupportedOnView",
        189 => "PrimarySteppedDown",
        197 => "InvalidIndexSpecificationOption",
        262 => "ExceededTimeLimit",
        10107 => "NotWritablePrimary",
        11000 => "DuplicateKey",
        11600 => "InterruptedAtShutdown",
        11601 => "Interrupted",
        11602 => "InterruptedDueToReplStateChange",
        13435 => "NotPrimaryNoSecondaryOk",
        _ => return format!("Location{code}"),
    };
    name.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_reply_carries_code_and_code_name() {
        let reply = CommandError::new(code::INDEX_OPTIONS_CONFLICT, "boom").to_reply();
        assert_eq!(reply.get_f64("ok").unwrap(), 0.0);
        assert_eq!(reply.get_i32("code").unwrap(), 85);
        assert_eq!(reply.get_str("codeName").unwrap(), "IndexOptionsConflict");
        assert_eq!(reply.get_str("errmsg").unwrap(), "boom");
    }

    #[test]
    fn location_codes_are_named_by_number() {
        assert_eq!(code_name(40415), "Location40415");
    }
}
