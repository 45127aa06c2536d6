//! mongosh's printed form (`printjson(db.getCollectionInfos())`): JavaScript object literals with
//! unquoted keys, single-quoted strings, trailing commas and the shell's type helpers
//! (`UUID('...')`, `Long('5')`, `ISODate('...')`, ...), read into BSON keeping field order, so a
//! catalog can be pasted from a shell session as well as exported with `EJSON.stringify`.

use bson::spec::BinarySubtype;
use bson::{Binary, Bson, DateTime, Decimal128, Document, Timestamp, oid::ObjectId};

/// Where and why reading failed (1-based line and column).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShellError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// What was expected.
    pub message: String,
    /// Byte offset, to tell which of two readers got further.
    pub offset: usize,
}

impl std::fmt::Display for ShellError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} at line {} column {}",
            self.message, self.line, self.column
        )
    }
}

/// How to print a value in full in mongosh, for the messages below.
const PRINT_IN_FULL: &str = "print it in full with `EJSON.stringify(<expression>, null, 2)` (or \
     `config.set(\"inspectDepth\", Infinity)` and `config.set(\"inspectCompact\", false)`, then \
     `printjson(<expression>)`) and paste only what it prints";

/// Why a paste that neither reader reads is not a value, when it is a known mistake: the shell's
/// prompt pasted with it (`shop> `), or the REPL's shortened display (`[Object]`, `[Array]`,
/// `... 5 more items`, a `...` line). `None` when it is none of these.
///
/// ```
/// let why = mongo_schema::catalog::shell::diagnose("shop> db.getCollectionInfos()\n[ { name: 'a' } ]").unwrap();
/// assert!(why.starts_with("line 1 is a mongosh prompt"), "{why}");
/// ```
pub fn diagnose(text: &str) -> Option<String> {
    for (i, line) in text.lines().enumerate() {
        if let Some(prompt) = prompt(line) {
            return Some(format!(
                "line {} is a mongosh prompt (`{prompt}`), pasted with the output: paste only the \
                 printed value, or {PRINT_IN_FULL}",
                i + 1
            ));
        }
    }
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        let shortened = ["[Object]", "[Array]", "[Function", "[Circular"]
            .into_iter()
            .find(|t| line.contains(t))
            .or_else(|| more_items(trimmed).then_some("... N more items"))
            .or_else(|| matches!(trimmed, "..." | "...," | "…").then_some("..."));
        if let Some(token) = shortened {
            return Some(format!(
                "line {}: `{token}` is mongosh's shortened display, not the value (nested \
                 documents past its inspect depth and long arrays are cut): {PRINT_IN_FULL}",
                i + 1
            ));
        }
    }
    None
}

/// The prompt at the start of `line` (`shop> `, `rs0 [direct: primary] shop> `), if any.
fn prompt(line: &str) -> Option<&str> {
    let line = line.trim_start();
    let end = line
        .find("> ")
        .map(|i| i + 1)
        .or_else(|| line.ends_with('>').then_some(line.len()))?;
    let head = &line[..end - 1];
    // A database name, optionally after a replica set or Atlas label in brackets: words,
    // dashes, dots, colons and brackets only (a value has quotes, braces or commas).
    let word = |c: char| c.is_alphanumeric() || "_-.:[] ".contains(c);
    let named = head
        .split_whitespace()
        .last()
        .is_some_and(|db| db.chars().all(|c| c.is_alphanumeric() || "_-.".contains(c)));
    (named && head.chars().all(word)).then_some(&line[..end])
}

/// `... 12 more items`, as util.inspect ends a long array: on a line of its own, or inside a
/// line when the array fits on one (`[ 1, 2, ... 98 more items ]`).
fn more_items(line: &str) -> bool {
    line.match_indices("... ").any(|(at, _)| {
        let mut words = line[at + 4..].split_whitespace();
        words
            .next()
            .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
            && words.next() == Some("more")
            && words.next().is_some_and(|w| w.starts_with("item"))
    })
}

/// Parses one value in mongosh's printed syntax.
///
/// # Errors
/// The first place the text stops being a value, with line and column.
pub fn parse(text: &str) -> Result<Bson, ShellError> {
    let mut p = Parser { text, pos: 0 };
    let value = p.value()?;
    p.skip_space();
    if p.pos < text.len() {
        return Err(p.error("unexpected text after the value"));
    }
    Ok(value)
}

/// A BSON regular expression (options sorted, as BSON stores them), through its Extended JSON
/// form: bson builds one only that way.
fn regex(pattern: &str, options: &str) -> Option<Bson> {
    let mut options: Vec<char> = options.chars().collect();
    options.sort_unstable();
    let options: String = options.into_iter().collect();
    Bson::try_from(serde_json::json!({
        "$regularExpression": {"pattern": pattern, "options": options}
    }))
    .ok()
}

struct Parser<'a> {
    text: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn error(&self, message: &str) -> ShellError {
        let before = &self.text[..self.pos.min(self.text.len())];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        ShellError {
            line,
            column,
            message: message.to_owned(),
            offset: self.pos,
        }
    }

    fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    fn skip_space(&mut self) {
        loop {
            let rest = &self.text[self.pos..];
            let trimmed = rest.trim_start();
            self.pos += rest.len() - trimmed.len();
            if trimmed.starts_with("//") {
                self.pos += trimmed.find('\n').unwrap_or(trimmed.len());
            } else {
                break;
            }
        }
    }

    fn eat(&mut self, c: char) -> bool {
        self.skip_space();
        if self.peek() == Some(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: char) -> Result<(), ShellError> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.error(&format!("expected `{c}`")))
        }
    }

    fn identifier(&mut self) -> String {
        let rest = &self.text[self.pos..];
        let len = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$' || c == '.'))
            .unwrap_or(rest.len());
        self.pos += len;
        rest[..len].to_owned()
    }

    fn value(&mut self) -> Result<Bson, ShellError> {
        self.skip_space();
        match self.peek() {
            Some('{') => self.document().map(Bson::Document),
            Some('[') => self.array(),
            Some('\'' | '"') => self.string().map(Bson::String),
            Some('/') => self.regex(),
            Some(c) if c == '-' || c == '+' || c.is_ascii_digit() => self.number(),
            Some(c) if c.is_alphabetic() || c == '_' || c == '$' => {
                let start = self.pos;
                let word = self.identifier();
                self.word(&word, start)
            }
            _ => Err(self.error("expected a value")),
        }
    }

    fn document(&mut self) -> Result<Document, ShellError> {
        self.expect('{')?;
        let mut doc = Document::new();
        loop {
            if self.eat('}') {
                return Ok(doc);
            }
            self.skip_space();
            let key = match self.peek() {
                Some('\'' | '"') => self.string()?,
                _ => {
                    let key = self.identifier();
                    if key.is_empty() {
                        return Err(self.error("expected a field name"));
                    }
                    key
                }
            };
            self.expect(':')?;
            let value = self.value()?;
            doc.insert(key, value);
            if !self.eat(',') {
                self.expect('}')?;
                return Ok(doc);
            }
        }
    }

    fn array(&mut self) -> Result<Bson, ShellError> {
        self.expect('[')?;
        let mut items = Vec::new();
        loop {
            if self.eat(']') {
                return Ok(Bson::Array(items));
            }
            items.push(self.value()?);
            if !self.eat(',') {
                self.expect(']')?;
                return Ok(Bson::Array(items));
            }
        }
    }

    fn string(&mut self) -> Result<String, ShellError> {
        self.skip_space();
        let Some(quote) = self.peek() else {
            return Err(self.error("expected a string"));
        };
        self.pos += 1;
        let mut out = String::new();
        let mut chars = self.text[self.pos..].char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                c if c == quote => {
                    self.pos += i + 1;
                    return Ok(out);
                }
                '\\' => {
                    let Some((_, escaped)) = chars.next() else {
                        break;
                    };
                    match escaped {
                        'n' => out.push('\n'),
                        't' => out.push('\t'),
                        'r' => out.push('\r'),
                        'b' => out.push('\u{8}'),
                        'f' => out.push('\u{c}'),
                        '0' => out.push('\0'),
                        'u' => {
                            let hex: String = (0..4)
                                .filter_map(|_| chars.next().map(|(_, c)| c))
                                .collect();
                            let code = u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32);
                            match code {
                                Some(c) => out.push(c),
                                None => return Err(self.error("bad \\u escape")),
                            }
                        }
                        other => out.push(other),
                    }
                }
                c => out.push(c),
            }
        }
        Err(self.error("unterminated string"))
    }

    fn regex(&mut self) -> Result<Bson, ShellError> {
        self.pos += 1;
        let rest = &self.text[self.pos..];
        let mut escaped = false;
        let mut end = None;
        for (i, c) in rest.char_indices() {
            match c {
                '\\' if !escaped => escaped = true,
                '/' if !escaped => {
                    end = Some(i);
                    break;
                }
                '\n' => break,
                _ => escaped = false,
            }
        }
        let Some(end) = end else {
            return Err(self.error("unterminated regular expression"));
        };
        let pattern = rest[..end].to_owned();
        self.pos += end + 1;
        let flags = self.identifier();
        regex(&pattern, &flags).ok_or_else(|| self.error("invalid regular expression"))
    }

    fn number(&mut self) -> Result<Bson, ShellError> {
        let rest = &self.text[self.pos..];
        let len = rest
            .char_indices()
            .find(|&(i, c)| {
                !(c.is_ascii_digit()
                    || c == '.'
                    || c == 'e'
                    || c == 'E'
                    || ((c == '-' || c == '+')
                        && (i == 0 || matches!(rest.as_bytes()[i - 1], b'e' | b'E'))))
            })
            .map_or(rest.len(), |(i, _)| i);
        let literal = &rest[..len];
        if literal == "-" || literal == "+" {
            // -Infinity
            self.pos += 1;
            let word = self.identifier();
            return match word.as_str() {
                "Infinity" if literal == "-" => Ok(Bson::Double(f64::NEG_INFINITY)),
                "Infinity" => Ok(Bson::Double(f64::INFINITY)),
                _ => Err(self.error("expected a number")),
            };
        }
        self.pos += len;
        // A JavaScript number: whole values are what the shell sends as Int32 when they fit.
        if !literal.contains(['.', 'e', 'E']) {
            if let Ok(v) = literal.parse::<i32>() {
                return Ok(Bson::Int32(v));
            }
        }
        literal
            .parse::<f64>()
            .map(Bson::Double)
            .map_err(|_| self.error("expected a number"))
    }

    /// The arguments of a helper call: values separated by commas, in parentheses.
    fn arguments(&mut self) -> Result<Vec<Bson>, ShellError> {
        self.expect('(')?;
        let mut args = Vec::new();
        loop {
            if self.eat(')') {
                return Ok(args);
            }
            args.push(self.value()?);
            if !self.eat(',') {
                self.expect(')')?;
                return Ok(args);
            }
        }
    }

    fn word(&mut self, word: &str, start: usize) -> Result<Bson, ShellError> {
        match word {
            "true" => return Ok(Bson::Boolean(true)),
            "false" => return Ok(Bson::Boolean(false)),
            "null" => return Ok(Bson::Null),
            "undefined" => return Ok(Bson::Undefined),
            "NaN" => return Ok(Bson::Double(f64::NAN)),
            "Infinity" => return Ok(Bson::Double(f64::INFINITY)),
            "new" => {
                self.skip_space();
                let start = self.pos;
                let word = self.identifier();
                return self.word(&word, start);
            }
            _ => {}
        }
        let args = self.arguments()?;
        let at = |p: &Self, message: &str| {
            let mut e = p.error(message);
            let before = &p.text[..start];
            e.line = before.matches('\n').count() + 1;
            e.column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            e
        };
        let text_arg = |i: usize| -> Option<String> {
            match args.get(i) {
                Some(Bson::String(s)) => Some(s.clone()),
                Some(Bson::Int32(n)) => Some(n.to_string()),
                Some(Bson::Double(n)) => Some(n.to_string()),
                _ => None,
            }
        };
        let bad = |p: &Self| at(p, &format!("cannot read {word}(...)"));
        match word {
            "ObjectId" => text_arg(0)
                .and_then(|s| ObjectId::parse_str(s).ok())
                .map(Bson::ObjectId)
                .ok_or_else(|| bad(self)),
            "UUID" => {
                let hex: String = text_arg(0)
                    .unwrap_or_default()
                    .chars()
                    .filter(|c| *c != '-')
                    .collect();
                let bytes: Option<Vec<u8>> = (0..hex.len())
                    .step_by(2)
                    .map(|i| {
                        hex.get(i..i + 2)
                            .and_then(|b| u8::from_str_radix(b, 16).ok())
                    })
                    .collect();
                match bytes {
                    Some(bytes) if bytes.len() == 16 => Ok(Bson::Binary(Binary {
                        subtype: BinarySubtype::Uuid,
                        bytes,
                    })),
                    _ => Err(bad(self)),
                }
            }
            "ISODate" | "Date" => match args.first() {
                Some(Bson::String(s)) => DateTime::parse_rfc3339_str(s)
                    .map(Bson::DateTime)
                    .map_err(|_| bad(self)),
                Some(Bson::Int32(n)) => Ok(Bson::DateTime(DateTime::from_millis(i64::from(*n)))),
                Some(Bson::Double(n)) => Ok(Bson::DateTime(DateTime::from_millis(*n as i64))),
                _ => Err(bad(self)),
            },
            "Long" | "NumberLong" => text_arg(0)
                .and_then(|s| s.parse::<i64>().ok())
                .map(Bson::Int64)
                .ok_or_else(|| bad(self)),
            "Int32" | "NumberInt" => text_arg(0)
                .and_then(|s| s.parse::<i32>().ok())
                .map(Bson::Int32)
                .ok_or_else(|| bad(self)),
            "Double" => text_arg(0)
                .and_then(|s| s.parse::<f64>().ok())
                .map(Bson::Double)
                .ok_or_else(|| bad(self)),
            "Decimal128" | "NumberDecimal" => text_arg(0)
                .and_then(|s| s.parse::<Decimal128>().ok())
                .map(Bson::Decimal128)
                .ok_or_else(|| bad(self)),
            "Timestamp" => match args.first() {
                Some(Bson::Document(d)) => {
                    let part = |k: &str| match d.get(k) {
                        Some(Bson::Int32(n)) => u32::try_from(*n).ok(),
                        Some(Bson::Int64(n)) => u32::try_from(*n).ok(),
                        Some(Bson::Double(n)) => Some(*n as u32),
                        _ => None,
                    };
                    match (part("t"), part("i")) {
                        (Some(time), Some(increment)) => {
                            Ok(Bson::Timestamp(Timestamp { time, increment }))
                        }
                        _ => Err(bad(self)),
                    }
                }
                _ => Err(bad(self)),
            },
            "BinData" | "Binary.createFromBase64" => {
                let (subtype, base64) = if word == "BinData" {
                    (args.first().cloned(), text_arg(1))
                } else {
                    (args.get(1).cloned(), text_arg(0))
                };
                let subtype = match subtype {
                    Some(Bson::Int32(n)) => u8::try_from(n).ok(),
                    None => Some(0),
                    _ => None,
                };
                let wrapper = serde_json::json!({"$binary": {
                    "base64": base64.unwrap_or_default(),
                    "subType": format!("{:02x}", subtype.unwrap_or(0)),
                }});
                match (subtype, Bson::try_from(wrapper)) {
                    (Some(_), Ok(value)) => Ok(value),
                    _ => Err(bad(self)),
                }
            }
            "MinKey" => Ok(Bson::MinKey),
            "MaxKey" => Ok(Bson::MaxKey),
            "BSONRegExp" => match (text_arg(0), text_arg(1)) {
                (Some(pattern), flags) => {
                    regex(&pattern, &flags.unwrap_or_default()).ok_or_else(|| bad(self))
                }
                _ => Err(bad(self)),
            },
            _ => Err(at(self, &format!("unknown mongosh helper {word}(...)"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::doc;

    #[test]
    fn reads_printjson_of_get_collection_infos() {
        let text = "[\n  {\n    name: 'orders',\n    type: 'collection',\n    options: {\n      validator: { '$jsonSchema': { bsonType: 'object', required: [ 'a' ] } },\n      validationLevel: 'strict',\n    },\n    info: {\n      readOnly: false,\n      uuid: UUID('8744b553-0c9f-4386-b853-84ed9b4aba07')\n    },\n    idIndex: { v: 2, key: { _id: 1 }, name: '_id_' }\n  }\n]";
        let value = parse(text).unwrap();
        let Bson::Array(entries) = value else {
            panic!()
        };
        let entry = entries[0].as_document().unwrap();
        assert_eq!(entry.get_str("name").unwrap(), "orders");
        assert_eq!(
            entry.get_document("options").unwrap(),
            &doc! {"validator": {"$jsonSchema": {"bsonType": "object", "required": ["a"]}}, "validationLevel": "strict"}
        );
        let uuid = entry.get_document("info").unwrap().get("uuid").unwrap();
        assert!(
            matches!(uuid, Bson::Binary(b) if b.subtype == BinarySubtype::Uuid && b.bytes[0] == 0x87)
        );
    }

    #[test]
    fn type_helpers_keep_their_types() {
        let value = parse(
            "{ a: Long('5'), b: NumberLong(6), c: Int32(7), d: Double(1), e: Decimal128('1.5'), \
             f: ISODate('2024-01-02T03:04:05.000Z'), g: Timestamp({ t: 1, i: 2 }), h: 1.5, i: -3, \
             j: /ab+c/i, k: ObjectId('65a1b2c3d4e5f60718293a4b'), l: MinKey() }",
        )
        .unwrap();
        let d = value.as_document().unwrap();
        assert_eq!(d.get("a"), Some(&Bson::Int64(5)));
        assert_eq!(d.get("b"), Some(&Bson::Int64(6)));
        assert_eq!(d.get("c"), Some(&Bson::Int32(7)));
        assert_eq!(d.get("d"), Some(&Bson::Double(1.0)));
        assert!(matches!(d.get("e"), Some(Bson::Decimal128(_))));
        assert!(matches!(d.get("f"), Some(Bson::DateTime(_))));
        assert_eq!(
            d.get("g"),
            Some(&Bson::Timestamp(Timestamp {
                time: 1,
                increment: 2
            }))
        );
        assert_eq!(d.get("h"), Some(&Bson::Double(1.5)));
        assert_eq!(d.get("i"), Some(&Bson::Int32(-3)));
        assert!(matches!(d.get("j"), Some(Bson::RegularExpression(_))));
        assert!(matches!(d.get("k"), Some(Bson::ObjectId(_))));
        assert_eq!(d.get("l"), Some(&Bson::MinKey));
    }

    #[test]
    fn pasted_prompts_and_shortened_output_are_named() {
        for (text, start) in [
            (
                "shop> printjson(x)\n{ a: 1 }",
                "line 1 is a mongosh prompt (`shop>`)",
            ),
            (
                "{ a: 1 }\nrs0 [direct: primary] shop> ",
                "line 2 is a mongosh prompt (`rs0 [direct: primary] shop>`)",
            ),
            (
                "[\n  { a: { b: [Object] } }\n]",
                "line 2: `[Object]` is mongosh's shortened",
            ),
            ("{ a: [Array] }", "line 1: `[Array]` is mongosh's shortened"),
            (
                "[\n  1,\n  ... 100 more items\n]",
                "line 3: `... N more items`",
            ),
            (
                "{\n  a: 1,\n  ...\n}",
                "line 3: `...` is mongosh's shortened",
            ),
            // A short array fits on one line, its cut too.
            (
                "[ { name: 'orders' }, ... 12 more items ]",
                "line 1: `... N more items`",
            ),
        ] {
            let why = diagnose(text).unwrap();
            assert!(why.starts_with(start), "{why}");
            assert!(
                why.contains("EJSON.stringify(<expression>, null, 2)"),
                "{why}"
            );
        }
        // Only consulted once both readers have failed; a `>` inside a value is no prompt.
        assert_eq!(diagnose("{ cmp: a > b }"), None);
        assert_eq!(diagnose("{ a: 1 "), None);
    }

    #[test]
    fn errors_name_line_and_column() {
        let err = parse("{\n  a: 1,\n  b: Frob(2)\n}").unwrap_err();
        assert_eq!((err.line, err.column), (3, 6));
        assert!(err.message.contains("Frob"), "{err}");
        let err = parse("{ a: 'x }").unwrap_err();
        assert_eq!(err.message, "unterminated string");
    }
}
