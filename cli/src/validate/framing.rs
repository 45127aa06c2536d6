//! The framing turn of `validate`: chunks are cut in input order after their last whole
//! document or line, handing the partial one at the end to the next chunk.

use std::sync::Mutex;

use super::MAX_DOC;
use super::source::{Framing, Raw};

/// Where to cut a buffer of concatenated BSON.
pub(crate) enum Cut {
    /// After the last whole document, at this length.
    At(usize),
    /// Not even the first document is whole.
    None,
    /// A length that cannot be believed: check everything, the worker reports it.
    Implausible,
}

/// Hops over the length prefixes only (a few bytes per document).
pub(crate) fn bson_cut(b: &[u8]) -> Cut {
    let mut p = 0;
    loop {
        let rest = b.len() - p;
        let Some(len) = b.get(p..p + 4) else {
            return if p > 0 { Cut::At(p) } else { Cut::None };
        };
        let n = i32::from_le_bytes(len.try_into().expect("a slice of 4 bytes"));
        if !(5..=MAX_DOC).contains(&n) {
            return Cut::Implausible;
        }
        let n = n as usize;
        if rest < n {
            return if p > 0 { Cut::At(p) } else { Cut::None };
        }
        p += n;
        if p == b.len() {
            return Cut::At(p);
        }
    }
}

/// The framing turn: chunks are cut in input order, each handing the partial document (or line)
/// at its end to the next. Only the cut happens in turn; checking is parallel.
pub(crate) struct Chain {
    pub(crate) link: Mutex<Link>,
    pub(crate) turn: std::sync::Condvar,
}

/// State passed from one chunk to the next.
pub(crate) struct Link {
    /// The chunk whose turn it is.
    pub(crate) seq: usize,
    /// The start of a document or line that continues in the next chunk.
    pub(crate) carry: Vec<u8>,
    /// Where `carry` starts in the input.
    pub(crate) offset: u64,
    /// Nothing after this is framed: the input ended, or framing broke.
    pub(crate) ended: bool,
}

/// A chunk cut into what its worker checks: `joined` (the carried start of a document or line
/// completed from this chunk, or at the end of input everything left), then `raw[body]`.
pub(crate) struct Framed {
    /// Where `joined` starts in the input; `raw[body]` starts `head + body.start` after it.
    pub(crate) origin: u64,
    pub(crate) joined: Vec<u8>,
    pub(crate) head: usize,
    pub(crate) body: std::ops::Range<usize>,
    /// A line still without its end after this many bytes: stop after the body.
    pub(crate) overlong: Option<usize>,
}

impl Chain {
    pub(crate) fn new() -> Chain {
        Chain {
            link: Mutex::new(Link {
                seq: 0,
                carry: Vec::new(),
                offset: 0,
                ended: false,
            }),
            turn: std::sync::Condvar::new(),
        }
    }

    /// Waits for `raw`'s turn and cuts it; `None` once framing has ended.
    pub(crate) fn frame(&self, framing: Framing, raw: &Raw, max_line: usize) -> Option<Framed> {
        let mut link = self.link.lock().expect("no worker panics holding it");
        while link.seq != raw.seq {
            link = self.turn.wait(link).expect("no worker panics holding it");
        }
        let framed = if link.ended {
            None
        } else {
            Some(cut(&mut link, framing, raw, max_line))
        };
        link.seq += 1;
        drop(link);
        self.turn.notify_all();
        framed
    }
}

/// Cuts `raw` after the last whole document or line, completing the carried one first.
pub(crate) fn cut(link: &mut Link, framing: Framing, raw: &Raw, max_line: usize) -> Framed {
    let data = &raw.bytes[..raw.len];
    let head = std::mem::take(&mut link.carry);
    let h = head.len();
    let origin = link.offset;
    let mut framed = Framed {
        origin,
        joined: Vec::new(),
        head: h,
        body: 0..0,
        overlong: None,
    };
    let joined = |k: usize| {
        let mut j = head.clone();
        j.extend_from_slice(&data[..k]);
        j
    };
    if raw.last {
        // Everything left is checked; a partial document at the end is reported.
        link.ended = true;
        if h == 0 {
            framed.body = 0..data.len();
        } else {
            framed.joined = joined(data.len());
        }
        return framed;
    }
    // How much of `data` completes the carried document or line (`None`: it goes on).
    let k = if h == 0 {
        Some(0)
    } else {
        match framing {
            Framing::Bson => {
                let mut len = [0u8; 4];
                let have = h.min(4);
                len[..have].copy_from_slice(&head[..have]);
                let more = (4 - have).min(data.len());
                len[have..have + more].copy_from_slice(&data[..more]);
                let n = i32::from_le_bytes(len);
                if have + more < 4 {
                    None
                } else if !(5..=MAX_DOC).contains(&n) {
                    // Check it all: the worker reports the length; nothing after is framed.
                    link.ended = true;
                    framed.joined = joined(data.len());
                    return framed;
                } else {
                    (n as usize - h <= data.len()).then(|| n as usize - h)
                }
            }
            Framing::Lines | Framing::Array => data.iter().position(|&b| b == b'\n').map(|i| i + 1),
        }
    };
    let Some(k) = k else {
        link.carry = joined(data.len());
        if framing != Framing::Bson && link.carry.len() >= max_line {
            link.ended = true;
            framed.overlong = Some(link.carry.len());
        }
        return framed;
    };
    if h > 0 {
        framed.joined = joined(k);
    }
    let end = match framing {
        Framing::Bson => match bson_cut(&data[k..]) {
            Cut::At(c) => k + c,
            Cut::None => k,
            Cut::Implausible => {
                link.ended = true;
                data.len()
            }
        },
        Framing::Lines | Framing::Array => data[k..]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(k, |i| k + i + 1),
    };
    framed.body = k..end;
    link.carry = data[end..].to_vec();
    link.offset = origin + (h + end) as u64;
    if framing == Framing::Lines && link.carry.len() >= max_line {
        link.ended = true;
        framed.overlong = Some(link.carry.len());
    }
    framed
}
