//! Wire protocol framing: reads OP_MSG (and legacy OP_QUERY handshakes) from a socket and writes
//! replies.
//!
//! Source: the manual's "MongoDB Wire Protocol" page (`reference/mongodb-wire-protocol`): a 16-byte
//! little-endian header (messageLength, requestID, responseTo, opCode), then for OP_MSG (2013) a
//! `flagBits` word and sections: kind 0 is the command body, kind 1 a document sequence
//! (size, identifier, documents) that stands for an array field of the body.

use bson::{Bson, Document, RawDocumentBuf};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// OP_REPLY, the answer to a legacy OP_QUERY.
const OP_REPLY: i32 = 1;
/// OP_QUERY: legacy handshakes only (`isMaster` sent by old drivers).
const OP_QUERY: i32 = 2004;
/// OP_MSG: every command the Rust driver sends.
const OP_MSG: i32 = 2013;
/// flagBits bit 0: a CRC-32C checksum follows the sections.
const CHECKSUM_PRESENT: u32 = 1;
/// flagBits bit 1: the client expects no reply.
const MORE_TO_COME: u32 = 1 << 1;
/// The largest message the test server accepts (the server's `maxMessageSizeBytes`).
pub(crate) const MAX_MESSAGE_SIZE: i32 = 48_000_000;

/// One request read off the socket: the command with its document sequences folded in.
#[derive(Debug)]
pub(crate) struct Request {
    pub(crate) request_id: i32,
    pub(crate) body: Document,
    pub(crate) kind: RequestKind,
}

/// Which opcode a request came in, so the reply goes out in the matching form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RequestKind {
    /// OP_MSG expecting a reply.
    Msg,
    /// OP_MSG with moreToCome set: the client wants no reply (unacknowledged writes).
    MsgNoReply,
    /// Legacy OP_QUERY on `admin.$cmd`.
    Query,
}

/// What went wrong reading a request.
#[derive(Debug)]
pub(crate) enum ReadError {
    /// The peer closed the socket or it failed.
    Io,
    /// The bytes are not a message this server understands.
    Malformed(String),
}

impl From<std::io::Error> for ReadError {
    fn from(_: std::io::Error) -> Self {
        Self::Io
    }
}

/// Reads one request.
pub(crate) async fn read_request<R: AsyncRead + Unpin>(
    reader: &mut R,
) -> Result<Request, ReadError> {
    let length = reader.read_i32_le().await?;
    let request_id = reader.read_i32_le().await?;
    let _response_to = reader.read_i32_le().await?;
    let op_code = reader.read_i32_le().await?;
    if !(16..=MAX_MESSAGE_SIZE).contains(&length) {
        return Err(ReadError::Malformed(format!(
            "message length {length} out of range"
        )));
    }
    let mut payload = vec![0; length as usize - 16];
    reader.read_exact(&mut payload).await?;
    match op_code {
        OP_MSG => parse_op_msg(&payload).map(|(body, no_reply)| Request {
            request_id,
            body,
            kind: if no_reply {
                RequestKind::MsgNoReply
            } else {
                RequestKind::Msg
            },
        }),
        OP_QUERY => parse_op_query(&payload).map(|body| Request {
            request_id,
            body,
            kind: RequestKind::Query,
        }),
        other => Err(ReadError::Malformed(format!("unsupported opCode {other}"))),
    }
}

fn parse_op_msg(payload: &[u8]) -> Result<(Document, bool), ReadError> {
    let flags = u32::from_le_bytes(take::<4>(payload, 0)?);
    let end = if flags & CHECKSUM_PRESENT != 0 {
        payload
            .len()
            .checked_sub(4)
            .ok_or_else(|| malformed("checksum missing"))?
    } else {
        payload.len()
    };
    let mut body: Option<Document> = None;
    let mut sequences: Vec<(String, Vec<Bson>)> = Vec::new();
    let mut at = 4;
    while at < end {
        let kind = payload[at];
        at += 1;
        match kind {
            0 => {
                let (doc, size) = document_at(payload, at)?;
                body = Some(doc);
                at += size;
            }
            1 => {
                let size = i32::from_le_bytes(take::<4>(payload, at)?) as usize;
                let section_end = at + size;
                if size < 5 || section_end > end {
                    return Err(malformed("document sequence overruns the message"));
                }
                let mut cursor = at + 4;
                let name_end = payload[cursor..section_end]
                    .iter()
                    .position(|&b| b == 0)
                    .ok_or_else(|| malformed("unterminated sequence identifier"))?;
                let identifier =
                    String::from_utf8_lossy(&payload[cursor..cursor + name_end]).into_owned();
                cursor += name_end + 1;
                let mut documents = Vec::new();
                while cursor < section_end {
                    let (doc, doc_size) = document_at(payload, cursor)?;
                    documents.push(Bson::Document(doc));
                    cursor += doc_size;
                }
                sequences.push((identifier, documents));
                at = section_end;
            }
            other => return Err(malformed(&format!("unknown section kind {other}"))),
        }
    }
    let mut body = body.ok_or_else(|| malformed("OP_MSG without a body section"))?;
    for (identifier, documents) in sequences {
        body.insert(identifier, Bson::Array(documents));
    }
    Ok((body, flags & MORE_TO_COME != 0))
}

fn parse_op_query(payload: &[u8]) -> Result<Document, ReadError> {
    let mut at = 4; // flags
    let name_end = payload[at..]
        .iter()
        .position(|&b| b == 0)
        .ok_or_else(|| malformed("unterminated collection name"))?;
    let namespace = String::from_utf8_lossy(&payload[at..at + name_end]).into_owned();
    at += name_end + 1 + 8; // numberToSkip, numberToReturn
    let (mut query, _) = document_at(payload, at)?;
    // Legacy drivers may wrap the command as {$query: {...}, $readPreference: ...}.
    if let Ok(inner) = query.get_document("$query") {
        query = inner.clone();
    }
    let db = namespace.split('.').next().unwrap_or("admin").to_owned();
    query.insert("$db", db);
    Ok(query)
}

fn document_at(payload: &[u8], at: usize) -> Result<(Document, usize), ReadError> {
    let size = i32::from_le_bytes(take::<4>(payload, at)?) as usize;
    let bytes = payload
        .get(at..at + size)
        .ok_or_else(|| malformed("document overruns the message"))?;
    let raw = RawDocumentBuf::from_bytes(bytes.to_vec()).map_err(|e| malformed(&e.to_string()))?;
    let doc = Document::try_from(raw).map_err(|e| malformed(&e.to_string()))?;
    Ok((doc, size))
}

fn take<const N: usize>(payload: &[u8], at: usize) -> Result<[u8; N], ReadError> {
    payload
        .get(at..at + N)
        .and_then(|s| s.try_into().ok())
        .ok_or_else(|| malformed("message truncated"))
}

fn malformed(message: &str) -> ReadError {
    ReadError::Malformed(message.to_owned())
}

/// Writes `reply` as the answer to `request`, in the opcode the request used.
pub(crate) async fn write_reply<W: AsyncWrite + Unpin>(
    writer: &mut W,
    request_id: i32,
    response_to: i32,
    kind: RequestKind,
    reply: &Document,
) -> std::io::Result<()> {
    let doc = reply
        .to_vec()
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
    let mut out = Vec::with_capacity(doc.len() + 40);
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&request_id.to_le_bytes());
    out.extend_from_slice(&response_to.to_le_bytes());
    match kind {
        RequestKind::Query => {
            out.extend_from_slice(&OP_REPLY.to_le_bytes());
            out.extend_from_slice(&0i32.to_le_bytes()); // responseFlags
            out.extend_from_slice(&0i64.to_le_bytes()); // cursorID
            out.extend_from_slice(&0i32.to_le_bytes()); // startingFrom
            out.extend_from_slice(&1i32.to_le_bytes()); // numberReturned
        }
        RequestKind::Msg | RequestKind::MsgNoReply => {
            out.extend_from_slice(&OP_MSG.to_le_bytes());
            out.extend_from_slice(&0u32.to_le_bytes()); // flagBits
            out.push(0); // section kind 0
        }
    }
    out.extend_from_slice(&doc);
    let length = i32::try_from(out.len())
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
    out[..4].copy_from_slice(&length.to_le_bytes());
    writer.write_all(&out).await?;
    writer.flush().await
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::doc;

    fn op_msg(body: &Document, sequence: Option<(&str, &[Document])>) -> Vec<u8> {
        let mut payload = 0u32.to_le_bytes().to_vec();
        payload.push(0);
        payload.extend(body.to_vec().unwrap());
        if let Some((name, docs)) = sequence {
            let mut section = Vec::new();
            section.extend(name.as_bytes());
            section.push(0);
            for d in docs {
                section.extend(d.to_vec().unwrap());
            }
            payload.push(1);
            payload.extend(((section.len() + 4) as i32).to_le_bytes());
            payload.extend(section);
        }
        let mut out = ((payload.len() + 16) as i32).to_le_bytes().to_vec();
        out.extend(7i32.to_le_bytes());
        out.extend(0i32.to_le_bytes());
        out.extend(OP_MSG.to_le_bytes());
        out.extend(payload);
        out
    }

    #[tokio::test]
    async fn document_sequences_become_array_fields() {
        let bytes = op_msg(
            &doc! {"insert": "c", "$db": "d"},
            Some(("documents", &[doc! {"a": 1}, doc! {"a": 2}])),
        );
        let request = read_request(&mut bytes.as_slice()).await.unwrap();
        assert_eq!(request.request_id, 7);
        assert_eq!(request.kind, RequestKind::Msg);
        assert_eq!(
            request.body,
            doc! {"insert": "c", "$db": "d", "documents": [{"a": 1}, {"a": 2}]}
        );
    }

    #[tokio::test]
    async fn replies_are_framed_with_their_length() {
        let mut out = Vec::new();
        write_reply(&mut out, 3, 7, RequestKind::Msg, &doc! {"ok": 1})
            .await
            .unwrap();
        assert_eq!(
            i32::from_le_bytes(out[..4].try_into().unwrap()) as usize,
            out.len()
        );
        assert_eq!(i32::from_le_bytes(out[8..12].try_into().unwrap()), 7);
        assert_eq!(i32::from_le_bytes(out[12..16].try_into().unwrap()), OP_MSG);
    }

    #[tokio::test]
    async fn unknown_opcodes_are_malformed() {
        let mut bytes = 16i32.to_le_bytes().to_vec();
        bytes.extend([0; 8]);
        bytes.extend(2010i32.to_le_bytes());
        assert!(matches!(
            read_request(&mut bytes.as_slice()).await,
            Err(ReadError::Malformed(_))
        ));
    }
}
