//! Dialects as data: which keywords a dialect knows, the vocabulary each belongs to, and where its subschemas sit.
//!
//! Only draft 2020-12 is implemented; older drafts become further tables here rather than branches in the compiler.

/// A 2020-12 vocabulary. Core is always on; the others follow the meta-schema's `$vocabulary`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Vocabulary {
    Core,
    Applicator,
    Unevaluated,
    Validation,
    MetaData,
    FormatAnnotation,
    FormatAssertion,
    Content,
}

/// Where a keyword keeps its subschemas, so resources can be found without compiling.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    /// No subschema.
    Plain,
    /// One subschema (`not`, `items`).
    Schema,
    /// An array of subschemas (`allOf`, `prefixItems`).
    SchemaArray,
    /// An object whose values are subschemas (`properties`, `$defs`).
    SchemaMap,
}

/// One keyword of a dialect.
#[derive(Debug)]
pub(crate) struct KeywordSpec {
    pub(crate) name: &'static str,
    pub(crate) vocabulary: Vocabulary,
    pub(crate) shape: Shape,
}

/// The set of vocabularies in force for a schema resource, as bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct VocabularySet(u16);

impl VocabularySet {
    /// The set a schema without a custom meta-schema gets: everything but format assertion.
    pub(crate) const DEFAULT: Self = Self(
        Self::bit(Vocabulary::Core)
            | Self::bit(Vocabulary::Applicator)
            | Self::bit(Vocabulary::Unevaluated)
            | Self::bit(Vocabulary::Validation)
            | Self::bit(Vocabulary::MetaData)
            | Self::bit(Vocabulary::FormatAnnotation)
            | Self::bit(Vocabulary::Content),
    );

    /// Only core.
    pub(crate) const CORE: Self = Self(Self::bit(Vocabulary::Core));

    const fn bit(vocabulary: Vocabulary) -> u16 {
        1 << vocabulary as u16
    }

    /// Adds a vocabulary.
    pub(crate) fn insert(&mut self, vocabulary: Vocabulary) {
        self.0 |= Self::bit(vocabulary);
    }

    /// Whether a vocabulary is in force.
    pub(crate) fn contains(self, vocabulary: Vocabulary) -> bool {
        self.0 & Self::bit(vocabulary) != 0
    }
}

/// The vocabulary named by a 2020-12 vocabulary URI.
pub(crate) fn vocabulary_by_uri(uri: &str) -> Option<Vocabulary> {
    let name = uri.strip_prefix("https://json-schema.org/draft/2020-12/vocab/")?;
    Some(match name {
        "core" => Vocabulary::Core,
        "applicator" => Vocabulary::Applicator,
        "unevaluated" => Vocabulary::Unevaluated,
        "validation" => Vocabulary::Validation,
        "meta-data" => Vocabulary::MetaData,
        "format-annotation" => Vocabulary::FormatAnnotation,
        "format-assertion" => Vocabulary::FormatAssertion,
        "content" => Vocabulary::Content,
        _ => return None,
    })
}

/// The 2020-12 keyword table.
pub(crate) const DRAFT_2020_12: &[KeywordSpec] = &[
    kw("$id", Vocabulary::Core, Shape::Plain),
    kw("$schema", Vocabulary::Core, Shape::Plain),
    kw("$ref", Vocabulary::Core, Shape::Plain),
    kw("$anchor", Vocabulary::Core, Shape::Plain),
    kw("$dynamicRef", Vocabulary::Core, Shape::Plain),
    kw("$dynamicAnchor", Vocabulary::Core, Shape::Plain),
    kw("$vocabulary", Vocabulary::Core, Shape::Plain),
    kw("$comment", Vocabulary::Core, Shape::Plain),
    kw("$defs", Vocabulary::Core, Shape::SchemaMap),
    kw("prefixItems", Vocabulary::Applicator, Shape::SchemaArray),
    kw("items", Vocabulary::Applicator, Shape::Schema),
    kw("contains", Vocabulary::Applicator, Shape::Schema),
    kw("additionalProperties", Vocabulary::Applicator, Shape::Schema),
    kw("properties", Vocabulary::Applicator, Shape::SchemaMap),
    kw("patternProperties", Vocabulary::Applicator, Shape::SchemaMap),
    kw("dependentSchemas", Vocabulary::Applicator, Shape::SchemaMap),
    kw("propertyNames", Vocabulary::Applicator, Shape::Schema),
    kw("if", Vocabulary::Applicator, Shape::Schema),
    kw("then", Vocabulary::Applicator, Shape::Schema),
    kw("else", Vocabulary::Applicator, Shape::Schema),
    kw("allOf", Vocabulary::Applicator, Shape::SchemaArray),
    kw("anyOf", Vocabulary::Applicator, Shape::SchemaArray),
    kw("oneOf", Vocabulary::Applicator, Shape::SchemaArray),
    kw("not", Vocabulary::Applicator, Shape::Schema),
    // Pre-2019 `dependencies`, kept by the 2020-12 meta-schema for compatibility: arrays act as dependentRequired,
    // schemas as dependentSchemas.
    kw("dependencies", Vocabulary::Applicator, Shape::SchemaMap),
    kw("unevaluatedItems", Vocabulary::Unevaluated, Shape::Schema),
    kw("unevaluatedProperties", Vocabulary::Unevaluated, Shape::Schema),
    kw("type", Vocabulary::Validation, Shape::Plain),
    kw("const", Vocabulary::Validation, Shape::Plain),
    kw("enum", Vocabulary::Validation, Shape::Plain),
    kw("multipleOf", Vocabulary::Validation, Shape::Plain),
    kw("maximum", Vocabulary::Validation, Shape::Plain),
    kw("exclusiveMaximum", Vocabulary::Validation, Shape::Plain),
    kw("minimum", Vocabulary::Validation, Shape::Plain),
    kw("exclusiveMinimum", Vocabulary::Validation, Shape::Plain),
    kw("maxLength", Vocabulary::Validation, Shape::Plain),
    kw("minLength", Vocabulary::Validation, Shape::Plain),
    kw("pattern", Vocabulary::Validation, Shape::Plain),
    kw("maxItems", Vocabulary::Validation, Shape::Plain),
    kw("minItems", Vocabulary::Validation, Shape::Plain),
    kw("uniqueItems", Vocabulary::Validation, Shape::Plain),
    kw("maxContains", Vocabulary::Validation, Shape::Plain),
    kw("minContains", Vocabulary::Validation, Shape::Plain),
    kw("maxProperties", Vocabulary::Validation, Shape::Plain),
    kw("minProperties", Vocabulary::Validation, Shape::Plain),
    kw("required", Vocabulary::Validation, Shape::Plain),
    kw("dependentRequired", Vocabulary::Validation, Shape::Plain),
    kw("title", Vocabulary::MetaData, Shape::Plain),
    kw("description", Vocabulary::MetaData, Shape::Plain),
    kw("default", Vocabulary::MetaData, Shape::Plain),
    kw("deprecated", Vocabulary::MetaData, Shape::Plain),
    kw("readOnly", Vocabulary::MetaData, Shape::Plain),
    kw("writeOnly", Vocabulary::MetaData, Shape::Plain),
    kw("examples", Vocabulary::MetaData, Shape::Plain),
    kw("format", Vocabulary::FormatAnnotation, Shape::Plain),
    kw("contentEncoding", Vocabulary::Content, Shape::Plain),
    kw("contentMediaType", Vocabulary::Content, Shape::Plain),
    // contentSchema is an annotation: its subschema is located (it may hold resources) but never applied.
    kw("contentSchema", Vocabulary::Content, Shape::Schema),
];

const fn kw(name: &'static str, vocabulary: Vocabulary, shape: Shape) -> KeywordSpec {
    KeywordSpec {
        name,
        vocabulary,
        shape,
    }
}

/// Looks a keyword up in the 2020-12 table. Every member of every schema object goes through here, so entries are
/// told apart by length and first byte before their text is compared.
pub(crate) fn keyword(name: &str) -> Option<&'static KeywordSpec> {
    let first = name.as_bytes().first()?;
    DRAFT_2020_12.iter().find(|spec| {
        spec.name.len() == name.len() && spec.name.as_bytes().first() == Some(first) && spec.name == name
    })
}
