//! The collection declaration's keys (`collection`, `index(...)`, `query(...)`, field
//! shorthands such as `unique` and `ttl`) as typed parts. `ast.rs` puts the parts of the
//! type, its fields and its variants together; `check/declaration.rs` applies the server's rules.

use proc_macro2::Span;
use syn::LitStr;

use super::keys::Scope;
use super::value::{Entry, FieldIndex, KeyKind, KeyPath, Value};
use crate::errors::Errors;

/// `index(keys(...), options...)`, on the type, a variant, or (without `keys`) a field.
pub struct IndexDecl {
    pub keys: Vec<(KeyPath, KeyKind)>,
    pub name: Option<String>,
    pub unique: bool,
    pub sparse: bool,
    pub hidden: bool,
    pub ttl: Option<i64>,
    pub partial: Option<String>,
    pub collation: Option<String>,
    pub wildcard_projection: Option<String>,
    pub weights: Vec<(KeyPath, i64)>,
    pub default_language: Option<String>,
    pub language_override: Option<String>,
    pub bits: Option<i64>,
    pub min: Option<f64>,
    pub max: Option<f64>,
    /// `(tag, value)` scoping an index declared on a variant; set by `ast.rs`.
    pub variant: Option<(String, String)>,
    pub span: Span,
    /// A field's `unique` shorthand, where a conflict with `hashed` is reported.
    pub unique_at: Option<Span>,
}

impl IndexDecl {
    fn new(span: Span) -> IndexDecl {
        IndexDecl {
            keys: Vec::new(),
            name: None,
            unique: false,
            sparse: false,
            hidden: false,
            ttl: None,
            partial: None,
            collation: None,
            wildcard_projection: None,
            weights: Vec::new(),
            default_language: None,
            language_override: None,
            bits: None,
            min: None,
            max: None,
            variant: None,
            span,
            unique_at: None,
        }
    }

    pub fn is_text(&self) -> bool {
        self.keys.iter().any(|(_, k)| *k == KeyKind::Text)
    }

    fn from_entries(span: Span, entries: Vec<Entry>) -> IndexDecl {
        let mut index = IndexDecl::new(span);
        for entry in entries {
            match (entry.name(), entry.value) {
                ("keys", Value::Keys(keys)) => index.keys = keys,
                ("name", Value::Str(s)) => index.name = Some(s.value()),
                ("unique", Value::Flag(b)) => index.unique = b,
                ("sparse", Value::Flag(b)) => index.sparse = b,
                ("hidden", Value::Flag(b)) => index.hidden = b,
                ("ttl" | "expire_after_seconds", Value::Count(n)) => {
                    index.ttl = Some(saturating(n))
                }
                ("partial", Value::Json(j)) => index.partial = Some(j),
                ("collation", Value::Json(j)) => index.collation = Some(j),
                ("wildcard_projection", Value::Json(j)) => index.wildcard_projection = Some(j),
                ("weights", Value::Weights(w)) => index.weights = w,
                ("default_language", Value::Str(s)) => index.default_language = Some(s.value()),
                ("language_override", Value::Str(s)) => index.language_override = Some(s.value()),
                ("bits", Value::Integer(n)) => index.bits = Some(n),
                ("min", Value::Number(n)) => index.min = Some(n.value),
                ("max", Value::Number(n)) => index.max = Some(n.value),
                (name, _) => unreachable!("the key table gives `{name}` another kind"),
            }
        }
        index
    }
}

/// `query(name = "...", eq(...), sort(...), ...)`: a query the application runs.
pub struct QueryDecl {
    pub name: String,
    pub eq: Vec<KeyPath>,
    pub sort: Vec<(KeyPath, bool)>,
    pub range: Vec<KeyPath>,
    pub project: Option<Vec<KeyPath>>,
    pub without_id: bool,
    pub filter: Option<String>,
    pub limit: Option<i64>,
    pub frequency: Option<String>,
    /// `search(...)` or `vector_search(...)`: the query runs on a search index.
    pub search: Option<SearchStageDecl>,
}

/// A query's `search(index, paths(...))` or `vector_search(index, path, filter(...))`.
pub enum SearchStageDecl {
    Search {
        index: String,
        paths: Vec<KeyPath>,
    },
    VectorSearch {
        index: String,
        path: KeyPath,
        filters: Vec<KeyPath>,
    },
}

impl SearchStageDecl {
    /// Every path the stage names.
    pub fn paths(&self) -> Vec<&KeyPath> {
        match self {
            SearchStageDecl::Search { paths, .. } => paths.iter().collect(),
            SearchStageDecl::VectorSearch { path, filters, .. } => {
                std::iter::once(path).chain(filters).collect()
            }
        }
    }
}

/// `vector_index(name, path, dimensions, similarity, quantization, filter(...))`.
pub struct VectorIndexDecl {
    pub name: String,
    pub path: KeyPath,
    pub dimensions: (u64, Span),
    pub similarity: LitStr,
    pub quantization: Option<LitStr>,
    pub filters: Vec<KeyPath>,
    pub span: Span,
}

/// `search_index(name, dynamic, analyzer, mappings(...))`.
pub struct SearchIndexDecl {
    pub name: String,
    pub dynamic: bool,
    pub analyzer: Option<String>,
    /// Static field mappings, in declaration order.
    pub mappings: Vec<MappingDecl>,
    pub span: Span,
}

/// One field of `mappings(title(type = "string", analyzer = "lucene.english"))`.
pub struct MappingDecl {
    pub path: KeyPath,
    pub field_type: LitStr,
    pub analyzer: Option<String>,
    pub search_analyzer: Option<String>,
}

/// `timeseries(time_field = ..., meta_field = ..., granularity = ..., bucket_*)`.
pub struct TimeseriesDecl {
    pub time: KeyPath,
    pub meta: Option<KeyPath>,
    pub granularity: Option<LitStr>,
    pub bucket_max_span_seconds: Option<i64>,
    pub bucket_rounding_seconds: Option<i64>,
    pub span: Span,
}

/// `version(field = ..., current = n, previous(Type = n, ...), absent = n)`.
pub struct VersionDecl {
    pub field: String,
    pub current: i64,
    pub previous: Vec<(syn::Type, i64)>,
    pub absent: Option<i64>,
    pub span: Span,
}

/// `shard_key(keys(...), unique)`.
pub struct ShardKeyDecl {
    pub keys: Vec<(KeyPath, KeyKind)>,
    pub unique: bool,
    pub span: Span,
}

/// `capped(size = bytes, max = documents)`.
pub struct CappedDecl {
    pub size: i64,
    pub max: Option<i64>,
}

/// A field's index shorthands together: `index`, `unique`, `ttl`, `hashed`.
pub struct FieldIndexAttrs {
    pub kind: KeyKind,
    pub options: IndexDecl,
    pub span: Span,
}

/// The declaration's keys on the type itself, `collection` aside.
#[derive(Default)]
pub struct CollectionAttrs {
    pub validator: Option<bool>,
    pub validation_level: Option<String>,
    pub validation_action: Option<String>,
    /// The type's indexes; `ast.rs` adds those of fields and variants after them.
    pub indexes: Vec<IndexDecl>,
    pub shard_key: Option<ShardKeyDecl>,
    pub timeseries: Option<TimeseriesDecl>,
    pub expire_after_seconds: Option<i64>,
    pub capped: Option<CappedDecl>,
    pub clustered_index: bool,
    pub collation: Option<String>,
    pub change_stream_pre_and_post_images: bool,
    pub version: Option<VersionDecl>,
    pub queries: Vec<QueryDecl>,
    /// `view_on = Type`: the source of a view, with the key's span.
    pub view_on: Option<(syn::Type, Span)>,
    /// `pipeline = "[...]"`: a view's stages as JSON text, with the key's span.
    pub pipeline: Option<(String, Span)>,
    pub vector_indexes: Vec<VectorIndexDecl>,
    pub search_indexes: Vec<SearchIndexDecl>,
}

/// The declaration's keys written on one item.
#[derive(Default)]
pub struct DeclarationAttrs {
    /// `collection = "name"`, with the key's span (what the type-wide errors point at).
    pub collection: Option<(LitStr, Span)>,
    /// `view = "name"`, with the key's span.
    pub view: Option<(LitStr, Span)>,
    pub options: CollectionAttrs,
    pub field_index: Option<FieldIndexAttrs>,
    pub text: Option<(i64, Span)>,
    pub unbounded: Option<Span>,
    /// The first declaration key on a field or variant: where a forgotten `collection` is
    /// reported.
    pub shorthand_at: Option<Span>,
}

/// A count as the server's 64-bit option; one beyond it saturates (the server refuses it).
fn saturating(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

impl DeclarationAttrs {
    pub fn from_entries(errors: &Errors, scope: Scope, entries: Vec<Entry>) -> DeclarationAttrs {
        let mut out = DeclarationAttrs::default();
        if scope != Scope::Container {
            out.shorthand_at = entries.first().map(|e| e.span);
        }
        let mut field_index: Option<FieldIndexAttrs> = None;
        let field_index_at = |span| FieldIndexAttrs {
            kind: KeyKind::Ascending,
            options: IndexDecl::new(span),
            span,
        };
        for entry in entries {
            let span = entry.span;
            match (entry.name(), entry.value) {
                ("collection", Value::Str(s)) => out.collection = Some((s, span)),
                ("view", Value::Str(s)) => out.view = Some((s, span)),
                ("view_on", Value::Type(t)) => out.options.view_on = Some((t, span)),
                ("pipeline", Value::Json(j)) => out.options.pipeline = Some((j, span)),
                ("validator", Value::Flag(b)) => out.options.validator = Some(b),
                ("validation_level", Value::Str(s)) => {
                    out.options.validation_level = Some(s.value())
                }
                ("validation_action", Value::Str(s)) => {
                    out.options.validation_action = Some(s.value())
                }
                ("index", Value::Nested(list)) => {
                    let index = IndexDecl::from_entries(span, list);
                    if index.keys.is_empty() {
                        errors.at(
                            span,
                            "index needs keys(...), e.g. index(keys(user_id, status, created_at = -1))",
                        );
                    } else {
                        out.options.indexes.push(index);
                    }
                }
                ("shard_key", Value::Nested(list)) => {
                    out.options.shard_key = shard_key(errors, span, list)
                }
                ("timeseries", Value::Nested(list)) => {
                    out.options.timeseries = timeseries(errors, span, list);
                }
                ("expire_after_seconds", Value::Count(n)) => {
                    out.options.expire_after_seconds = Some(saturating(n));
                }
                ("capped", Value::Nested(list)) => out.options.capped = capped(errors, span, list),
                ("clustered_index", Value::Flag(b)) => out.options.clustered_index = b,
                ("collation", Value::Json(j)) => out.options.collation = Some(j),
                ("change_stream_pre_and_post_images", Value::Flag(b)) => {
                    out.options.change_stream_pre_and_post_images = b;
                }
                ("version", Value::Nested(list)) => {
                    out.options.version = version(errors, span, list)
                }
                ("query", Value::Nested(list)) => {
                    out.options.queries.extend(query(errors, span, list))
                }
                ("vector_index", Value::Nested(list)) => out
                    .options
                    .vector_indexes
                    .extend(vector_index(errors, span, list)),
                ("search_index", Value::Nested(list)) => out
                    .options
                    .search_indexes
                    .extend(search_index(errors, span, list)),
                ("text", Value::TextWeight(w)) => out.text = Some((w, span)),
                ("unbounded", Value::Flag(b)) => out.unbounded = b.then_some(span),
                ("index", Value::FieldIndex(shape)) => {
                    let entry = field_index.get_or_insert_with(|| field_index_at(span));
                    match shape {
                        FieldIndex::Plain => {}
                        FieldIndex::Kind(kind) => entry.kind = kind,
                        FieldIndex::Options(list) => {
                            if let Some(keys) = list.iter().find(|e| e.name() == "keys") {
                                errors.at(
                                    keys.span,
                                    "an index on a field has that field as its key: remove \
                                     `keys`, or declare a compound index on the type, e.g. \
                                     #[mongo(collection = \"...\", index(keys(a, b)))]",
                                );
                            }
                            let options = IndexDecl::from_entries(entry.span, list);
                            merge(&mut entry.options, options);
                        }
                    }
                }
                ("unique", Value::Flag(b)) => {
                    let entry = field_index.get_or_insert_with(|| field_index_at(span));
                    entry.options.unique |= b;
                    entry.options.unique_at = Some(span);
                }
                ("ttl", Value::Count(n)) => {
                    let entry = field_index.get_or_insert_with(|| field_index_at(span));
                    entry.options.ttl = entry.options.ttl.or(Some(saturating(n)));
                }
                ("hashed", Value::Flag(b)) => {
                    let entry = field_index.get_or_insert_with(|| field_index_at(span));
                    if b {
                        entry.kind = KeyKind::Hashed;
                    }
                }
                (name, _) => unreachable!("the key table gives `{name}` another kind"),
            }
        }
        out.field_index = field_index;
        out
    }
}

/// Options of a field's `index(...)` over those of its shorthands.
fn merge(into: &mut IndexDecl, from: IndexDecl) {
    into.name = from.name.or(into.name.take());
    into.unique |= from.unique;
    into.sparse |= from.sparse;
    into.hidden |= from.hidden;
    into.ttl = from.ttl.or(into.ttl);
    into.partial = from.partial.or(into.partial.take());
    into.collation = from.collation.or(into.collation.take());
    into.default_language = from.default_language.or(into.default_language.take());
    into.language_override = from.language_override.or(into.language_override.take());
}

fn shard_key(errors: &Errors, span: Span, entries: Vec<Entry>) -> Option<ShardKeyDecl> {
    let mut keys = Vec::new();
    let mut unique = false;
    for entry in entries {
        match (entry.name(), entry.value) {
            ("keys", Value::Keys(k)) => keys = k,
            ("unique", Value::Flag(b)) => unique = b,
            (name, _) => unreachable!("the key table gives `{name}` another kind"),
        }
    }
    if keys.is_empty() {
        errors.at(
            span,
            "shard_key needs keys(...), e.g. shard_key(keys(user_id = \"hashed\"))",
        );
        return None;
    }
    Some(ShardKeyDecl { keys, unique, span })
}

fn timeseries(errors: &Errors, span: Span, entries: Vec<Entry>) -> Option<TimeseriesDecl> {
    let mut time = None;
    let mut meta = None;
    let mut granularity = None;
    let mut bucket_max_span_seconds = None;
    let mut bucket_rounding_seconds = None;
    for entry in entries {
        match (entry.name(), entry.value) {
            ("time_field", Value::KeyPath(p)) => time = Some(p),
            ("meta_field", Value::KeyPath(p)) => meta = Some(p),
            ("granularity", Value::Str(s)) => granularity = Some(s),
            ("bucket_max_span_seconds", Value::Integer(n)) => bucket_max_span_seconds = Some(n),
            ("bucket_rounding_seconds", Value::Integer(n)) => bucket_rounding_seconds = Some(n),
            (name, _) => unreachable!("the key table gives `{name}` another kind"),
        }
    }
    let Some(time) = time else {
        errors.at(span, "timeseries needs time_field = <field>");
        return None;
    };
    Some(TimeseriesDecl {
        time,
        meta,
        granularity,
        bucket_max_span_seconds,
        bucket_rounding_seconds,
        span,
    })
}

fn capped(errors: &Errors, span: Span, entries: Vec<Entry>) -> Option<CappedDecl> {
    let mut size = None;
    let mut max = None;
    for entry in entries {
        match (entry.name(), entry.value) {
            ("size", Value::Count(n)) => size = Some(saturating(n)),
            ("max", Value::Integer(n)) => max = Some(n),
            (name, _) => unreachable!("the key table gives `{name}` another kind"),
        }
    }
    let Some(size) = size else {
        errors.at(span, "capped needs size = <bytes>");
        return None;
    };
    Some(CappedDecl { size, max })
}

fn version(errors: &Errors, span: Span, entries: Vec<Entry>) -> Option<VersionDecl> {
    let mut field = None;
    let mut current = None;
    let mut previous = Vec::new();
    let mut absent = None;
    for entry in entries {
        match (entry.name(), entry.value) {
            ("field", Value::Str(s)) => field = Some(s.value()),
            ("current", Value::Integer(n)) => current = Some(n),
            ("absent", Value::Integer(n)) => absent = Some(n),
            ("previous", Value::Previous(p)) => previous = p,
            (name, _) => unreachable!("the key table gives `{name}` another kind"),
        }
    }
    let (Some(field), Some(current)) = (field, current) else {
        errors.at(
            span,
            "version needs field and current, e.g. version(field = \"schemaVersion\", current = 2, previous(UserV1 = 1))",
        );
        return None;
    };
    if previous.is_empty() {
        errors.at(
            span,
            "version needs previous(Type = n, ...): the older shapes still stored",
        );
        return None;
    }
    Some(VersionDecl {
        field,
        current,
        previous,
        absent,
        span,
    })
}

fn vector_index(errors: &Errors, span: Span, entries: Vec<Entry>) -> Option<VectorIndexDecl> {
    let (mut name, mut path, mut dimensions, mut similarity) = (None, None, None, None);
    let (mut quantization, mut filters) = (None, Vec::new());
    for entry in entries {
        let at = entry.span;
        match (entry.name(), entry.value) {
            ("name", Value::Str(s)) => name = Some(s.value()),
            ("path", Value::KeyPath(p)) => path = Some(p),
            ("dimensions", Value::Count(n)) => dimensions = Some((n, at)),
            ("similarity", Value::Str(s)) => similarity = Some(s),
            ("quantization", Value::Str(s)) => quantization = Some(s),
            ("filter", Value::Keys(k)) => filters = k.into_iter().map(|(p, _)| p).collect(),
            (name, _) => unreachable!("the key table gives `{name}` another kind"),
        }
    }
    let (Some(name), Some(path), Some(dimensions), Some(similarity)) =
        (name, path, dimensions, similarity)
    else {
        errors.at(
            span,
            "vector_index needs name, path, dimensions and similarity, e.g. vector_index(name = \"embedding_index\", path = embedding, dimensions = 768, similarity = \"cosine\")",
        );
        return None;
    };
    Some(VectorIndexDecl {
        name,
        path,
        dimensions,
        similarity,
        quantization,
        filters,
        span,
    })
}

fn search_index(errors: &Errors, span: Span, entries: Vec<Entry>) -> Option<SearchIndexDecl> {
    let (mut name, mut dynamic, mut analyzer) = (None, false, None);
    let (mut mappings, mut mapped) = (Vec::new(), false);
    for entry in entries {
        match (entry.name(), entry.value) {
            ("name", Value::Str(s)) => name = Some(s.value()),
            ("dynamic", Value::Flag(b)) => dynamic = b,
            ("analyzer", Value::Str(s)) => analyzer = Some(s.value()),
            ("mappings", Value::Mappings(fields)) => {
                mapped |= !fields.is_empty();
                mappings.extend(
                    fields
                        .into_iter()
                        .filter_map(|(p, e)| mapping(errors, p, e)),
                );
            }
            (name, _) => unreachable!("the key table gives `{name}` another kind"),
        }
    }
    if !dynamic && !mapped {
        errors.at(
            span,
            "search_index needs dynamic or static mappings: write search_index(name = \"...\", dynamic) or search_index(name = \"...\", mappings(title(type = \"string\")))",
        );
        return None;
    }
    if !dynamic && mappings.is_empty() {
        // Each mapped field was refused, with its reason.
        return None;
    }
    Some(SearchIndexDecl {
        name: name.unwrap_or_else(|| "default".to_owned()),
        dynamic,
        analyzer,
        mappings,
        span,
    })
}

fn mapping(errors: &Errors, path: KeyPath, entries: Vec<Entry>) -> Option<MappingDecl> {
    let (mut field_type, mut analyzer, mut search_analyzer) = (None, None, None);
    for entry in entries {
        match (entry.name(), entry.value) {
            ("type", Value::Str(s)) => field_type = Some(s),
            ("analyzer", Value::Str(s)) => analyzer = Some(s.value()),
            ("search_analyzer", Value::Str(s)) => search_analyzer = Some(s.value()),
            (name, _) => unreachable!("the key table gives `{name}` another kind"),
        }
    }
    let Some(field_type) = field_type else {
        errors.at(
            path.span,
            format!(
                "a mapped field needs its type, e.g. {}(type = \"string\")",
                path.text
            ),
        );
        return None;
    };
    Some(MappingDecl {
        path,
        field_type,
        analyzer,
        search_analyzer,
    })
}

fn search_stage(
    errors: &Errors,
    span: Span,
    vector: bool,
    entries: Vec<Entry>,
) -> Option<SearchStageDecl> {
    let (mut index, mut path, mut paths, mut filters) = (None, None, Vec::new(), Vec::new());
    let only_paths = |keys: Vec<(KeyPath, KeyKind)>| keys.into_iter().map(|(p, _)| p).collect();
    for entry in entries {
        match (entry.name(), entry.value) {
            ("index", Value::Str(s)) => index = Some(s.value()),
            ("path", Value::KeyPath(p)) => path = Some(p),
            ("paths", Value::Keys(k)) => paths = only_paths(k),
            ("filter", Value::Keys(k)) => filters = only_paths(k),
            (name, _) => unreachable!("the key table gives `{name}` another kind"),
        }
    }
    if vector {
        let (Some(index), Some(path)) = (index, path) else {
            errors.at(
                span,
                "vector_search needs index and path, e.g. vector_search(index = \"embedding_index\", path = embedding, filter(status))",
            );
            return None;
        };
        return Some(SearchStageDecl::VectorSearch {
            index,
            path,
            filters,
        });
    }
    if paths.is_empty() {
        errors.at(
            span,
            "search needs the fields it searches, e.g. search(index = \"default\", paths(title, body))",
        );
        return None;
    }
    Some(SearchStageDecl::Search {
        // `index` defaults to "default" in $search (the $search stage's reference).
        index: index.unwrap_or_else(|| "default".to_owned()),
        paths,
    })
}

fn query(errors: &Errors, span: Span, entries: Vec<Entry>) -> Option<QueryDecl> {
    let mut q = QueryDecl {
        name: String::new(),
        eq: Vec::new(),
        sort: Vec::new(),
        range: Vec::new(),
        project: None,
        without_id: false,
        filter: None,
        limit: None,
        frequency: None,
        search: None,
    };
    let mut plain_at = None;
    let paths = |keys: Vec<(KeyPath, KeyKind)>| keys.into_iter().map(|(p, _)| p).collect();
    for entry in entries {
        if matches!(
            entry.name(),
            "eq" | "sort" | "range" | "project" | "without_id" | "filter"
        ) {
            plain_at.get_or_insert(entry.span);
        }
        match (entry.name(), entry.value) {
            ("name", Value::Str(s)) => q.name = s.value(),
            ("eq", Value::Keys(k)) => q.eq = paths(k),
            ("range", Value::Keys(k)) => q.range = paths(k),
            ("project", Value::Keys(k)) => q.project = Some(paths(k)),
            ("sort", Value::Keys(k)) => {
                for (p, kind) in k {
                    match kind {
                        KeyKind::Ascending => q.sort.push((p, false)),
                        KeyKind::Descending => q.sort.push((p, true)),
                        _ => errors.at(p.span, "a sort key is 1 or -1"),
                    }
                }
            }
            ("without_id", Value::Flag(b)) => q.without_id = b,
            ("filter", Value::Json(j)) => q.filter = Some(j),
            ("search" | "vector_search", Value::Nested(list)) => {
                if q.search.is_some() {
                    errors.at(
                        entry.span,
                        "a query runs one search stage: keep search(...) or vector_search(...)",
                    );
                    continue;
                }
                let vector = entry.key.name == "vector_search";
                q.search = search_stage(errors, entry.span, vector, list);
                continue;
            }
            ("limit", Value::Count(n)) => q.limit = Some(saturating(n)),
            ("frequency", Value::Str(s)) => q.frequency = Some(s.value()),
            (name, _) => unreachable!("the key table gives `{name}` another kind"),
        }
    }
    if let (Some(_), Some(at)) = (&q.search, plain_at) {
        errors.at(
            at,
            "a search or vector_search query is answered by its search index: eq, sort, range, project, without_id and filter do not apply (limit and frequency do)",
        );
    }
    if q.name.is_empty() {
        errors.at(
            span,
            "a query needs name = \"...\", e.g. query(name = \"by_user\", eq(user_id), sort(created_at = -1))",
        );
        return None;
    }
    Some(q)
}
