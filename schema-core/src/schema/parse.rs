//! Server replies and validator files -> IR: parses any `$jsonSchema`, rejecting exactly what the server rejects.
