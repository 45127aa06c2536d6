//! The derive input as one typed model: serde's view (names after every rename, skips,
//! defaults, tags, `with` helpers) joined with our `#[mongo]` attributes and doc comments.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use serde_derive_internals::{Ctxt, Derive, ast as serde_ast, attr as serde_attr};
use syn::spanned::Spanned;

use crate::attr::{self, CollectionAttrs, KeyPath, MongoAttrs, Scope};
use crate::errors::Errors;

pub struct Container {
    pub ident: syn::Ident,
    pub generics: syn::Generics,
    pub body: Body,
    pub tag: Tag,
    pub deny_unknown_fields: bool,
    pub has_default: bool,
    pub transparent: bool,
    pub from: Option<syn::Type>,
    pub try_from: Option<syn::Type>,
    pub into: Option<syn::Type>,
    pub mongo: MongoAttrs,
    pub doc: Option<String>,
    /// `#[mongo(collection = ...)]` with the indexes and shorthands of its fields and variants.
    pub declaration: Option<Declaration>,
}

pub enum Body {
    Struct(Style, Vec<Field>),
    Enum(Vec<Variant>),
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Style {
    Struct,
    Tuple,
    Newtype,
    Unit,
}

pub enum Tag {
    External,
    Internal(String),
    Adjacent(String, String),
    Untagged,
}

pub struct Variant {
    pub ident: syn::Ident,
    /// The name serde writes.
    pub ser_name: String,
    /// Every name serde reads, the primary one first.
    pub read_names: Vec<String>,
    pub style: Style,
    pub fields: Vec<Field>,
    pub skip_serializing: bool,
    pub skip_deserializing: bool,
    pub other: bool,
    pub untagged: bool,
    pub custom_with: bool,
    pub mongo: MongoAttrs,
    pub doc: Option<String>,
}

pub struct Field {
    pub member: syn::Member,
    pub ty: syn::Type,
    pub ser_name: String,
    pub read_names: Vec<String>,
    pub skip_serializing: bool,
    pub skip_deserializing: bool,
    pub skip_serializing_if: bool,
    /// A field-level `#[serde(default)]`.
    pub has_default: bool,
    pub flatten: bool,
    pub with: With,
    pub mongo: MongoAttrs,
    pub doc: Option<String>,
    pub span: Span,
}

/// How serde stores a field, as far as `with`/`serialize_with`/`deserialize_with` tell.
pub enum With {
    /// The field type's own impls.
    Native,
    /// A known bson serde helper: tokens of a `derive_support::Helper`, and how it wraps.
    Helper(TokenStream, HelperShape),
    /// Functions we cannot see into: the schema must be given explicitly.
    Custom(syn::ExprPath),
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum HelperShape {
    Plain,
    Option,
    Vec,
}

impl Field {
    /// Whether serde reads this field through a function of its own (not the type's impl),
    /// which disables the "missing `Option` reads as `None`" rule.
    pub fn has_deserialize_with(&self) -> bool {
        !matches!(self.with, With::Native)
    }

    /// The type whose `MongoSchema` impl the generated code names for this field: the
    /// `schema_as` type when one is given, none when `bson_type` or `schema_with` states the
    /// schema (a foreign type needs no impl), `()` for
    /// a `PhantomData` (serde writes it as a unit, which bson stores as `null`).
    pub fn schema_type(&self) -> Option<syn::Type> {
        if let Some(ty) = &self.mongo.schema_as {
            return Some(ty.clone());
        }
        if self.mongo.bson_type.is_some() || self.mongo.schema_with.is_some() {
            return None;
        }
        if is_phantom(&self.ty) {
            return Some(syn::parse_quote!(()));
        }
        Some(self.ty.clone())
    }

    /// Whether serde never reads nor writes the field: nothing of its type is named.
    pub fn is_skipped(&self) -> bool {
        self.skip_serializing && self.skip_deserializing
    }
}

/// Whether a type is written `PhantomData<...>`.
pub fn is_phantom(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Path(tp) if tp.qself.is_none() => tp
            .path
            .segments
            .last()
            .is_some_and(|s| s.ident == "PhantomData"),
        syn::Type::Group(g) => is_phantom(&g.elem),
        syn::Type::Paren(p) => is_phantom(&p.elem),
        _ => false,
    }
}

impl Container {
    /// The path the generated code names the crate by.
    pub fn krate(&self) -> TokenStream {
        self.mongo.crate_path()
    }

    pub fn from_ast(errors: &Errors, input: &syn::DeriveInput) -> Option<Container> {
        let cx = Ctxt::new();
        let private = syn::Ident::new("__private", Span::call_site());
        let parsed = serde_ast::Container::from_ast(&cx, input, Derive::Deserialize, &private);
        // serde's own derive reports its attribute errors; repeating them would double them.
        let serde_failed = cx.check().is_err();
        let parsed = parsed?;
        if serde_failed {
            return None;
        }
        let mongo = attr::parse(errors, &input.attrs, Scope::Container);
        let attrs = &parsed.attrs;
        let tag = match attrs.tag() {
            serde_attr::TagType::External => Tag::External,
            serde_attr::TagType::Internal { tag } => Tag::Internal(tag.clone()),
            serde_attr::TagType::Adjacent { tag, content } => {
                Tag::Adjacent(tag.clone(), content.clone())
            }
            serde_attr::TagType::None => Tag::Untagged,
        };
        let body = match &parsed.data {
            serde_ast::Data::Struct(style, fields) => Body::Struct(
                style_of(*style),
                fields
                    .iter()
                    .map(|f| Field::from_serde(errors, f))
                    .collect(),
            ),
            serde_ast::Data::Enum(variants) => Body::Enum(
                variants
                    .iter()
                    .map(|v| Variant::from_serde(errors, v))
                    .collect(),
            ),
        };
        let mut mongo = mongo;
        let mut body = body;
        let declaration = Declaration::from_parts(&mut mongo, &tag, &mut body);
        Some(Container {
            declaration,
            ident: input.ident.clone(),
            generics: input.generics.clone(),
            body,
            tag,
            deny_unknown_fields: attrs.deny_unknown_fields(),
            has_default: !attrs.default().is_none(),
            transparent: attrs.transparent(),
            from: attrs.type_from().cloned(),
            try_from: attrs.type_try_from().cloned(),
            into: attrs.type_into().cloned(),
            mongo,
            doc: attr::doc_comment(&input.attrs),
        })
    }
}

fn style_of(style: serde_ast::Style) -> Style {
    match style {
        serde_ast::Style::Struct => Style::Struct,
        serde_ast::Style::Tuple => Style::Tuple,
        serde_ast::Style::Newtype => Style::Newtype,
        serde_ast::Style::Unit => Style::Unit,
    }
}

fn read_names(
    primary: &str,
    aliases: &std::collections::BTreeSet<serde_derive_internals::name::Name>,
) -> Vec<String> {
    let mut names = vec![primary.to_owned()];
    for alias in aliases {
        if !names.contains(&alias.value) {
            names.push(alias.value.clone());
        }
    }
    names
}

impl Variant {
    fn from_serde(errors: &Errors, v: &serde_ast::Variant<'_>) -> Variant {
        let name = v.attrs.name();
        Variant {
            ident: v.ident.clone(),
            ser_name: name.serialize_name().value.clone(),
            read_names: read_names(&name.deserialize_name().value, v.attrs.aliases()),
            style: style_of(v.style),
            fields: v
                .fields
                .iter()
                .map(|f| Field::from_serde(errors, f))
                .collect(),
            skip_serializing: v.attrs.skip_serializing(),
            skip_deserializing: v.attrs.skip_deserializing(),
            other: v.attrs.other(),
            untagged: v.attrs.untagged(),
            custom_with: v.attrs.serialize_with().is_some() || v.attrs.deserialize_with().is_some(),
            mongo: attr::parse(errors, &v.original.attrs, Scope::Variant),
            doc: attr::doc_comment(&v.original.attrs),
        }
    }
}

impl Field {
    fn from_serde(errors: &Errors, f: &serde_ast::Field<'_>) -> Field {
        let name = f.attrs.name();
        let mongo = attr::parse(errors, &f.original.attrs, Scope::Field);
        let (ser, de) = (f.attrs.serialize_with(), f.attrs.deserialize_with());
        let mut with = classify_with(ser, de);
        let stated =
            mongo.bson_type.is_some() || mongo.schema_with.is_some() || mongo.schema_as.is_some();
        if matches!(with, With::Custom(_))
            && !stated
            && !f.attrs.skip_serializing()
            && bson2_half_alone(errors, ser, de)
        {
            // Reported with its way out; as native nothing else repeats it.
            with = With::Native;
        }
        Field {
            member: f.member.clone(),
            ty: f.ty.clone(),
            ser_name: name.serialize_name().value.clone(),
            read_names: read_names(&name.deserialize_name().value, f.attrs.aliases()),
            skip_serializing: f.attrs.skip_serializing(),
            skip_deserializing: f.attrs.skip_deserializing(),
            skip_serializing_if: f.attrs.skip_serializing_if().is_some(),
            has_default: !f.attrs.default().is_none(),
            flatten: f.attrs.flatten(),
            with,
            mongo,
            doc: attr::doc_comment(&f.original.attrs),
            span: f.original.span(),
        }
    }
}

/// What one side (`serialize_with` or `deserialize_with`) names.
#[derive(PartialEq)]
enum Side {
    None,
    Helper(String, HelperShape),
    /// A bson 2 serializer whose form the field type's own `Deserialize` reads back
    /// (`serialize_u32_as_i32`): the named helper, with no `deserialize_with` beside it.
    NativeRead(String),
    Custom,
}

fn classify_with(ser: Option<&syn::ExprPath>, de: Option<&syn::ExprPath>) -> With {
    let s = ser.map_or(Side::None, side);
    let d = de.map_or(Side::None, side);
    match (&s, &d) {
        (Side::None, Side::None) => With::Native,
        (Side::NativeRead(a), Side::None) => match helper_tokens(a) {
            Some(tokens) => With::Helper(tokens, HelperShape::Plain),
            None => With::Custom(ser.expect("a side is set").clone()),
        },
        (Side::Helper(a, shape), Side::Helper(b, _)) if a == b => match helper_tokens(a) {
            Some(tokens) => With::Helper(tokens, *shape),
            None => With::Custom(ser.or(de).expect("a side is set").clone()),
        },
        _ => {
            let path = if s == Side::Custom || s != Side::None {
                ser.or(de)
            } else {
                de.or(ser)
            };
            With::Custom(path.expect("a side is set").clone())
        }
    }
}

fn segment_names(path: &syn::Path) -> Vec<String> {
    path.segments.iter().map(|s| s.ident.to_string()).collect()
}

fn side(path: &syn::ExprPath) -> Side {
    let names = segment_names(&path.path);
    // `#[serde(borrow)]` on a `Cow` asks serde for its own borrowing reader: same stored form.
    if names.first().is_some_and(|n| n == "_serde") {
        return Side::None;
    }
    let segments: Vec<&syn::PathSegment> = path.path.segments.iter().collect();
    let Some((last, rest)) = segments.split_last() else {
        return Side::Custom;
    };
    if last.ident != "serialize" && last.ident != "deserialize" {
        return bson2_function(&last.ident.to_string()).unwrap_or(Side::Custom);
    }
    // serde_with: `::serde_with::As::<Converter>::serialize` (from `#[serde_as(as = "...")]`).
    if let Some(as_segment) = rest.last().filter(|s| s.ident == "As") {
        let syn::PathArguments::AngleBracketed(args) = &as_segment.arguments else {
            return Side::Custom;
        };
        let Some(syn::GenericArgument::Type(ty)) = args.args.first() else {
            return Side::Custom;
        };
        return side_of_type(ty, HelperShape::Plain);
    }
    let names: Vec<String> = rest.iter().map(|s| s.ident.to_string()).collect();
    if let Some(side) = names.last().and_then(|m| bson2_helper(m)) {
        return side;
    }
    helper_name(&names).map_or(Side::Custom, |h| Side::Helper(h, HelperShape::Plain))
}

/// bson 2's serde helper modules (`#[serde(with = "bson::serde_helpers::u32_as_f64")]`, bson 2
/// src/serde_helpers.rs): `(module, the bson 3 helper that stores the same form, shape)`.
const BSON2_HELPERS: &[(&str, &str, HelperShape)] = &[
    ("u32_as_f64", "u32::AsF64", HelperShape::Plain),
    ("u64_as_f64", "u64::AsF64", HelperShape::Plain),
    (
        "hex_string_as_object_id",
        "object_id::FromHexString",
        HelperShape::Plain,
    ),
    (
        "bson_datetime_as_rfc3339_string",
        "datetime::AsRfc3339String",
        HelperShape::Plain,
    ),
    (
        "rfc3339_string_as_bson_datetime",
        "datetime::FromRfc3339String",
        HelperShape::Plain,
    ),
    (
        "i64_as_bson_datetime",
        "datetime::FromI64",
        HelperShape::Plain,
    ),
    (
        "chrono_datetime_as_bson_datetime",
        "datetime::FromChrono04DateTime",
        HelperShape::Plain,
    ),
    // Writes `Option<bson::DateTime>`: a date, or null for `None`.
    (
        "chrono_datetime_as_bson_datetime_optional",
        "datetime::FromChrono04DateTime",
        HelperShape::Option,
    ),
    (
        "time_0_3_offsetdatetime_as_bson_datetime",
        "datetime::FromTime03OffsetDateTime",
        HelperShape::Plain,
    ),
    ("timestamp_as_u32", "timestamp::AsU32", HelperShape::Plain),
    ("u32_as_timestamp", "timestamp::FromU32", HelperShape::Plain),
    ("uuid_1_as_binary", "uuid_1::AsBinary", HelperShape::Plain),
    (
        "uuid_1_as_java_legacy_binary",
        "uuid_1::AsJavaLegacyBinary",
        HelperShape::Plain,
    ),
    (
        "uuid_1_as_python_legacy_binary",
        "uuid_1::AsPythonLegacyBinary",
        HelperShape::Plain,
    ),
    (
        "uuid_1_as_c_sharp_legacy_binary",
        "uuid_1::AsCSharpLegacyBinary",
        HelperShape::Plain,
    ),
    // The uuid 0.8 variants (bson 2's feature `uuid-0_8`) write the same binData.
    ("uuid_as_binary", "uuid_1::AsBinary", HelperShape::Plain),
    (
        "uuid_as_java_legacy_binary",
        "uuid_1::AsJavaLegacyBinary",
        HelperShape::Plain,
    ),
    (
        "uuid_as_python_legacy_binary",
        "uuid_1::AsPythonLegacyBinary",
        HelperShape::Plain,
    ),
    (
        "uuid_as_c_sharp_legacy_binary",
        "uuid_1::AsCSharpLegacyBinary",
        HelperShape::Plain,
    ),
];

/// The side a bson 2 helper module names, by the module's own name.
fn bson2_helper(module: &str) -> Option<Side> {
    BSON2_HELPERS
        .iter()
        .find(|(m, _, _)| *m == module)
        .map(|(_, name, shape)| Side::Helper((*name).to_owned(), *shape))
}

/// bson 2's serializers outside its modules (bson 2 src/serde_helpers.rs), each with the bson 3
/// helper that stores the same form. The field type's own `Deserialize` reads that form back
/// (serde's integer visitors take an int32 or int64 in range; bson 2's `ObjectId` visitor
/// parses a hex string), so they stand alone, without `deserialize_with`.
const BSON2_SERIALIZERS: &[(&str, &str)] = &[
    ("serialize_u32_as_i32", "u32::AsI32"),
    ("serialize_u32_as_i64", "u32::AsI64"),
    ("serialize_u64_as_i32", "u64::AsI32"),
    ("serialize_u64_as_i64", "u64::AsI64"),
    (
        "serialize_object_id_as_hex_string",
        "object_id::AsHexString",
    ),
];

/// The two bare functions bson 2 re-exports from a helper module `m`: `serialize_m` and
/// `deserialize_` + `m` with its `_as_` read as `_from_` (`serialize_u32_as_f64`,
/// `deserialize_u32_from_f64`).
fn bson2_halves(module: &str) -> (String, String) {
    (
        format!("serialize_{module}"),
        format!("deserialize_{}", module.replacen("_as_", "_from_", 1)),
    )
}

/// The side a bare bson 2 helper function names (`serialize_with =
/// "bson::serde_helpers::serialize_hex_string_as_object_id"`), by the function's name.
fn bson2_function(function: &str) -> Option<Side> {
    if let Some((_, name)) = BSON2_SERIALIZERS.iter().find(|(f, _)| *f == function) {
        return Some(Side::NativeRead((*name).to_owned()));
    }
    let (module, ..) = bson2_module_of(function)?;
    bson2_helper(module)
}

/// The bson 2 helper module a bare function is half of, with its own half and the other.
fn bson2_module_of(function: &str) -> Option<(&'static str, String, String)> {
    BSON2_HELPERS.iter().find_map(|(module, _, _)| {
        let (ser, de) = bson2_halves(module);
        if function == ser {
            Some((*module, ser, de))
        } else if function == de {
            Some((*module, de, ser))
        } else {
            None
        }
    })
}

fn last_name(path: &syn::ExprPath) -> Option<String> {
    path.path.segments.last().map(|s| s.ident.to_string())
}

/// A field whose `with` sides did not make a helper, one of them half of a bson 2 helper module
/// (`serialize_with = "...::serialize_hex_string_as_object_id"` alone, or beside another
/// function): the other side reads or writes some other form, so the derive cannot say what is
/// stored. Reports it with the way out; whether it did.
fn bson2_half_alone(
    errors: &Errors,
    ser: Option<&syn::ExprPath>,
    de: Option<&syn::ExprPath>,
) -> bool {
    let half = [ser, de].into_iter().flatten().find_map(|path| {
        let module = last_name(path).and_then(|n| bson2_module_of(&n))?;
        Some((path, module))
    });
    let Some((path, (module, this, pair))) = half else {
        return false;
    };
    errors.spanned(
        path,
        format!(
            "`{this}` is half of bson 2's helper `{module}`, and the other side of this field \
             is not `{pair}`, so the derive cannot tell what is stored; write \
             #[serde(with = \"bson::serde_helpers::{module}\")], or say what is stored with \
             #[mongo(bson_type = \"...\")] or #[mongo(schema_with = path)]"
        ),
    );
    true
}

fn side_of_type(ty: &syn::Type, shape: HelperShape) -> Side {
    let syn::Type::Path(tp) = ty else {
        return Side::Custom;
    };
    let Some(last) = tp.path.segments.last() else {
        return Side::Custom;
    };
    if shape == HelperShape::Plain && (last.ident == "Option" || last.ident == "Vec") {
        if let syn::PathArguments::AngleBracketed(args) = &last.arguments {
            if let Some(syn::GenericArgument::Type(inner)) = args.args.first() {
                let shape = if last.ident == "Option" {
                    HelperShape::Option
                } else {
                    HelperShape::Vec
                };
                return side_of_type(inner, shape);
            }
        }
        return Side::Custom;
    }
    if last.ident == "Same" && tp.path.segments.len() <= 2 && shape == HelperShape::Plain {
        return Side::None;
    }
    let names = segment_names(&tp.path);
    helper_name(&names).map_or(Side::Custom, |h| Side::Helper(h, shape))
}

/// bson 3's serde helpers: `(module, converter)`.
const HELPERS: &[(&str, &str)] = &[
    ("object_id", "AsHexString"),
    ("object_id", "FromHexString"),
    ("datetime", "AsRfc3339String"),
    ("datetime", "FromRfc3339String"),
    ("datetime", "FromI64"),
    ("datetime", "FromChrono04DateTime"),
    ("datetime", "FromJiff02Timestamp"),
    ("datetime", "FromTime03OffsetDateTime"),
    ("timestamp", "AsU32"),
    ("timestamp", "FromU32"),
    ("u32", "AsF64"),
    ("u32", "AsI32"),
    ("u32", "AsI64"),
    ("u64", "AsF64"),
    ("u64", "AsI32"),
    ("u64", "AsI64"),
    ("uuid_1", "AsBinary"),
    ("uuid_1", "FromBson"),
    ("uuid_1", "AsCSharpLegacyBinary"),
    ("uuid_1", "AsJavaLegacyBinary"),
    ("uuid_1", "AsPythonLegacyBinary"),
];

/// `module::Converter` for a path ending in a known converter; a bare converter name is
/// accepted when only one module has it.
fn helper_name(names: &[String]) -> Option<String> {
    let (converter, module) = match names {
        [.., module, converter] => (converter, Some(module)),
        [converter] => (converter, None),
        [] => return None,
    };
    // A module renamed on import (`use bson::serde_helpers::u32 as u32_helpers`) is not one
    // we know: then the converter name alone decides, when only one module has it.
    let module = module.filter(|m| HELPERS.iter().any(|(known, _)| known == m));
    let matches: Vec<&(&str, &str)> = HELPERS
        .iter()
        .filter(|(m, c)| c == converter && module.is_none_or(|module| module == m))
        .collect();
    match matches.as_slice() {
        [(m, c)] => Some(format!("{m}::{c}")),
        _ => None,
    }
}

fn helper_tokens(name: &str) -> Option<TokenStream> {
    let stored = |ty: &str| {
        let ident = syn::Ident::new(ty, Span::call_site());
        quote!(__ms::Helper::Stored(__ms::BsonType::#ident))
    };
    Some(match name {
        "object_id::AsHexString" => quote!(__ms::Helper::ObjectIdAsHexString),
        "object_id::FromHexString" => stored("ObjectId"),
        "datetime::AsRfc3339String" => quote!(__ms::Helper::DateTimeAsRfc3339String),
        "datetime::FromRfc3339String"
        | "datetime::FromI64"
        | "datetime::FromChrono04DateTime"
        | "datetime::FromJiff02Timestamp"
        | "datetime::FromTime03OffsetDateTime" => stored("Date"),
        "timestamp::AsU32" => quote!(__ms::Helper::TimestampAsU32),
        "timestamp::FromU32" => stored("Timestamp"),
        "u32::AsF64" => quote!(__ms::Helper::U32AsF64),
        "u32::AsI32" => quote!(__ms::Helper::U32AsI32),
        "u32::AsI64" => quote!(__ms::Helper::U32AsI64),
        "u64::AsF64" => quote!(__ms::Helper::U64AsF64),
        "u64::AsI32" => quote!(__ms::Helper::U64AsI32),
        "u64::AsI64" => quote!(__ms::Helper::U64AsI64),
        n if n.starts_with("uuid_1::") => stored("BinData"),
        _ => return None,
    })
}

/// Whether a type is written `Option<...>`: the types serde reads from a missing field.
pub fn is_option(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Path(tp) if tp.qself.is_none() => {
            tp.path.segments.last().is_some_and(|s| s.ident == "Option")
        }
        syn::Type::Group(g) => is_option(&g.elem),
        syn::Type::Paren(p) => is_option(&p.elem),
        _ => false,
    }
}

/// One collection root's declaration: the type's `#[mongo(collection = ...)]` keys with the
/// indexes and shorthands its fields and variants add.
pub struct Declaration {
    pub name: syn::LitStr,
    /// The `collection` key: what type-wide problems point at.
    pub at: Span,
    /// The type's keys, with the indexes of its fields and variants after its own.
    pub options: CollectionAttrs,
    pub text_fields: Vec<(KeyPath, i64)>,
    pub unbounded: Vec<KeyPath>,
    /// `view = "name"`: the span of the key when the declaration is a view.
    pub view: Option<Span>,
    /// The `collection` key of a type that also says `view`: `check` refuses the pair.
    pub collection_beside_view: Option<Span>,
}

impl Declaration {
    /// Moves the declaration's parts out of the attributes of the type, its fields and its
    /// variants; `None` without `collection` or `view` (the shorthands stay for `check` to
    /// report).
    fn from_parts(mongo: &mut MongoAttrs, tag: &Tag, body: &mut Body) -> Option<Declaration> {
        let collection = mongo.declaration.collection.take();
        let (name, at, view, collection_beside_view) =
            match (collection, mongo.declaration.view.take()) {
                (collection, Some((name, at))) => (name, at, Some(at), collection.map(|c| c.1)),
                (Some((name, at)), None) => (name, at, None, None),
                (None, None) => return None,
            };
        let options = std::mem::take(&mut mongo.declaration).options;
        let mut decl = Declaration {
            name,
            at,
            options,
            text_fields: Vec::new(),
            unbounded: Vec::new(),
            view,
            collection_beside_view,
        };
        match body {
            Body::Struct(_, fields) => {
                for f in fields {
                    let syn::Member::Named(ident) = &f.member else {
                        continue;
                    };
                    let path = |span| KeyPath {
                        text: ident.to_string(),
                        first: Some(ident.clone()),
                        span,
                    };
                    let parts = &mut f.mongo.declaration;
                    if let Some(index) = parts.field_index.take() {
                        let mut options = index.options;
                        options.keys.push((path(index.span), index.kind));
                        decl.options.indexes.push(options);
                    }
                    if let Some((weight, span)) = parts.text.take() {
                        decl.text_fields.push((path(span), weight));
                    }
                    if let Some(span) = parts.unbounded.take() {
                        decl.unbounded.push(path(span));
                    }
                }
            }
            Body::Enum(variants) => {
                for v in variants {
                    for mut index in std::mem::take(&mut v.mongo.declaration.options.indexes) {
                        // `check` refuses a variant index on an enum not internally tagged.
                        if let Tag::Internal(tag) = tag {
                            index.variant = Some((tag.clone(), v.ser_name.clone()));
                        }
                        decl.options.indexes.push(index);
                    }
                }
            }
        }
        Some(decl)
    }
}
