//! Dialects as data: which keywords a dialect knows, the vocabulary each belongs to, and where its subschemas sit.
//!
//! Drafts 4, 6, 7, 2019-09 and 2020-12: one table of keywords, each entry naming the drafts that know it and, where
//! its meaning changed, how it compiles there. Beyond this table the registry and the compiler ask a draft only the
//! three questions `Draft` answers (does `$ref` override its siblings, which keyword is the identifier, do fragment
//! ids declare anchors); the evaluators never ask.

use crate::draft::Draft;

/// A vocabulary (2020-12's; 2019-09's map onto them). Core is always on; the others follow the meta-schema's
/// `$vocabulary`. Drafts before 2019-09 have no vocabularies: every keyword of theirs is on.
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
    /// One subschema or an array of them (`items` before 2020-12).
    SchemaOrArray,
    /// An object whose values are subschemas (`properties`, `$defs`).
    SchemaMap,
}

/// How a keyword compiles where its meaning changed between drafts; `Standard` is the 2020-12 meaning (by name).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Semantics {
    /// As in 2020-12.
    Standard,
    /// `items` before 2020-12: an array applies position by position (as `prefixItems`), a schema to every item.
    LegacyItems,
    /// `additionalItems`: the items after those of an array-form `items`.
    AdditionalItems,
    /// Draft 4's `minimum`/`maximum`, made exclusive by a sibling boolean `exclusiveMinimum`/`exclusiveMaximum`.
    Draft4Bound,
    /// Draft 4's boolean `exclusiveMinimum`/`exclusiveMaximum`: compiled with the bound it modifies.
    Draft4Exclusive,
    /// `contains` in drafts 6 and 7: no `minContains`/`maxContains`.
    ContainsOne,
    /// `contains` in 2019-09: counted, but its matches are not evaluated items for `unevaluatedItems`.
    ContainsCounted,
    /// `$recursiveRef` (2019-09): dynamic when its target declares `$recursiveAnchor: true`.
    RecursiveRef,
}

/// One keyword of a dialect.
#[derive(Debug)]
pub(crate) struct KeywordSpec {
    pub(crate) name: &'static str,
    pub(crate) vocabulary: Vocabulary,
    pub(crate) shape: Shape,
    pub(crate) semantics: Semantics,
    /// The drafts that know the keyword with this meaning (see [`DraftSet`]).
    drafts: DraftSet,
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

/// What a document is read as: its draft and the vocabularies in force.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Dialect {
    pub(crate) draft: Draft,
    pub(crate) vocabularies: VocabularySet,
}

impl Dialect {
    /// A draft with its default vocabularies (every keyword of it but format assertion).
    pub(crate) fn of(draft: Draft) -> Self {
        Self {
            draft,
            vocabularies: VocabularySet::DEFAULT,
        }
    }

    /// The keyword `name` if this dialect knows it and its vocabulary is in force.
    pub(crate) fn keyword(self, name: &str) -> Option<&'static KeywordSpec> {
        let spec = keyword(self.draft, name)?;
        let active = match spec.vocabulary {
            Vocabulary::FormatAnnotation | Vocabulary::FormatAssertion => {
                self.vocabularies.contains(Vocabulary::FormatAnnotation)
                    || self.vocabularies.contains(Vocabulary::FormatAssertion)
            }
            vocabulary => self.vocabularies.contains(vocabulary),
        };
        active.then_some(spec)
    }
}

/// The vocabulary named by a 2020-12 or 2019-09 vocabulary URI. 2019-09's applicator vocabulary holds
/// `unevaluatedItems`/`unevaluatedProperties` (its table files them under applicator), and its format vocabulary
/// only annotates.
pub(crate) fn vocabulary_by_uri(uri: &str) -> Option<Vocabulary> {
    if let Some(name) = uri.strip_prefix("https://json-schema.org/draft/2019-09/vocab/") {
        return Some(match name {
            "core" => Vocabulary::Core,
            "applicator" => Vocabulary::Applicator,
            "validation" => Vocabulary::Validation,
            "meta-data" => Vocabulary::MetaData,
            "format" => Vocabulary::FormatAnnotation,
            "content" => Vocabulary::Content,
            _ => return None,
        });
    }
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

/// A set of drafts, as bits (one per [`Draft`], oldest lowest).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct DraftSet(u8);

impl DraftSet {
    const fn of(draft: Draft) -> u8 {
        1 << draft as u8
    }

    fn contains(self, draft: Draft) -> bool {
        self.0 & Self::of(draft) != 0
    }
}

const D4: u8 = DraftSet::of(Draft::Draft4);
const D6: u8 = DraftSet::of(Draft::Draft6);
const D7: u8 = DraftSet::of(Draft::Draft7);
const D2019: u8 = DraftSet::of(Draft::Draft201909);
const D2020: u8 = DraftSet::of(Draft::Draft202012);
/// Every draft.
const ALL: u8 = D4 | D6 | D7 | D2019 | D2020;
/// Drafts 6 and later.
const SINCE_6: u8 = D6 | D7 | D2019 | D2020;
/// Drafts 7 and later.
const SINCE_7: u8 = D7 | D2019 | D2020;
/// 2019-09 and 2020-12.
const SINCE_2019: u8 = D2019 | D2020;
/// Every draft before 2020-12.
const BEFORE_2020: u8 = D4 | D6 | D7 | D2019;

/// Every keyword of every draft, with the drafts that know it; a keyword whose meaning changed has one entry per
/// meaning. A draft's keyword table is this one read through its bit, so every difference between drafts is here
/// and the compiler never asks which draft it is in.
static KEYWORDS: &[KeywordSpec] = &[
    kw("$schema", ALL, Vocabulary::Core, Shape::Plain),
    kw("id", D4, Vocabulary::Core, Shape::Plain),
    kw("$id", SINCE_6, Vocabulary::Core, Shape::Plain),
    kw("$ref", ALL, Vocabulary::Core, Shape::Plain),
    kw("$anchor", SINCE_2019, Vocabulary::Core, Shape::Plain),
    kw("$dynamicRef", D2020, Vocabulary::Core, Shape::Plain),
    kw("$dynamicAnchor", D2020, Vocabulary::Core, Shape::Plain),
    kw("$recursiveRef", D2019, Vocabulary::Core, Shape::Plain).means(Semantics::RecursiveRef),
    kw("$recursiveAnchor", D2019, Vocabulary::Core, Shape::Plain),
    kw("$vocabulary", SINCE_2019, Vocabulary::Core, Shape::Plain),
    kw("$comment", SINCE_7, Vocabulary::Core, Shape::Plain),
    kw("$defs", SINCE_2019, Vocabulary::Core, Shape::SchemaMap),
    // A keyword before 2019-09; later meta-schemas keep it "to prevent incompatible extensions", so its values are
    // schemas (and may declare resources) in every draft.
    kw("definitions", ALL, Vocabulary::Core, Shape::SchemaMap),
    kw("prefixItems", D2020, Vocabulary::Applicator, Shape::SchemaArray),
    kw("items", D2020, Vocabulary::Applicator, Shape::Schema),
    kw("items", BEFORE_2020, Vocabulary::Applicator, Shape::SchemaOrArray).means(Semantics::LegacyItems),
    kw(
        "additionalItems",
        BEFORE_2020,
        Vocabulary::Applicator,
        Shape::Schema,
    )
    .means(Semantics::AdditionalItems),
    kw("contains", D2020, Vocabulary::Applicator, Shape::Schema),
    kw("contains", D2019, Vocabulary::Applicator, Shape::Schema).means(Semantics::ContainsCounted),
    kw("contains", D6 | D7, Vocabulary::Applicator, Shape::Schema).means(Semantics::ContainsOne),
    kw("additionalProperties", ALL, Vocabulary::Applicator, Shape::Schema),
    kw("properties", ALL, Vocabulary::Applicator, Shape::SchemaMap),
    kw("patternProperties", ALL, Vocabulary::Applicator, Shape::SchemaMap),
    kw(
        "dependentSchemas",
        SINCE_2019,
        Vocabulary::Applicator,
        Shape::SchemaMap,
    ),
    kw("propertyNames", SINCE_6, Vocabulary::Applicator, Shape::Schema),
    kw("if", SINCE_7, Vocabulary::Applicator, Shape::Schema),
    kw("then", SINCE_7, Vocabulary::Applicator, Shape::Schema),
    kw("else", SINCE_7, Vocabulary::Applicator, Shape::Schema),
    kw("allOf", ALL, Vocabulary::Applicator, Shape::SchemaArray),
    kw("anyOf", ALL, Vocabulary::Applicator, Shape::SchemaArray),
    kw("oneOf", ALL, Vocabulary::Applicator, Shape::SchemaArray),
    kw("not", ALL, Vocabulary::Applicator, Shape::Schema),
    // `dependencies`: a keyword before 2019-09, kept by the later meta-schemas for compatibility: arrays act as
    // dependentRequired, schemas as dependentSchemas.
    kw("dependencies", ALL, Vocabulary::Applicator, Shape::SchemaMap),
    // In 2019-09 these belong to the applicator vocabulary (2020-12 gave them their own).
    kw("unevaluatedItems", D2019, Vocabulary::Applicator, Shape::Schema),
    kw(
        "unevaluatedProperties",
        D2019,
        Vocabulary::Applicator,
        Shape::Schema,
    ),
    kw("unevaluatedItems", D2020, Vocabulary::Unevaluated, Shape::Schema),
    kw(
        "unevaluatedProperties",
        D2020,
        Vocabulary::Unevaluated,
        Shape::Schema,
    ),
    kw("type", ALL, Vocabulary::Validation, Shape::Plain),
    kw("const", SINCE_6, Vocabulary::Validation, Shape::Plain),
    kw("enum", ALL, Vocabulary::Validation, Shape::Plain),
    kw("multipleOf", ALL, Vocabulary::Validation, Shape::Plain),
    kw("maximum", D4, Vocabulary::Validation, Shape::Plain).means(Semantics::Draft4Bound),
    kw("exclusiveMaximum", D4, Vocabulary::Validation, Shape::Plain).means(Semantics::Draft4Exclusive),
    kw("minimum", D4, Vocabulary::Validation, Shape::Plain).means(Semantics::Draft4Bound),
    kw("exclusiveMinimum", D4, Vocabulary::Validation, Shape::Plain).means(Semantics::Draft4Exclusive),
    kw("maximum", SINCE_6, Vocabulary::Validation, Shape::Plain),
    kw("exclusiveMaximum", SINCE_6, Vocabulary::Validation, Shape::Plain),
    kw("minimum", SINCE_6, Vocabulary::Validation, Shape::Plain),
    kw("exclusiveMinimum", SINCE_6, Vocabulary::Validation, Shape::Plain),
    kw("maxLength", ALL, Vocabulary::Validation, Shape::Plain),
    kw("minLength", ALL, Vocabulary::Validation, Shape::Plain),
    kw("pattern", ALL, Vocabulary::Validation, Shape::Plain),
    kw("maxItems", ALL, Vocabulary::Validation, Shape::Plain),
    kw("minItems", ALL, Vocabulary::Validation, Shape::Plain),
    kw("uniqueItems", ALL, Vocabulary::Validation, Shape::Plain),
    kw("maxContains", SINCE_2019, Vocabulary::Validation, Shape::Plain),
    kw("minContains", SINCE_2019, Vocabulary::Validation, Shape::Plain),
    kw("maxProperties", ALL, Vocabulary::Validation, Shape::Plain),
    kw("minProperties", ALL, Vocabulary::Validation, Shape::Plain),
    kw("required", ALL, Vocabulary::Validation, Shape::Plain),
    kw(
        "dependentRequired",
        SINCE_2019,
        Vocabulary::Validation,
        Shape::Plain,
    ),
    kw("title", ALL, Vocabulary::MetaData, Shape::Plain),
    kw("description", ALL, Vocabulary::MetaData, Shape::Plain),
    kw("default", ALL, Vocabulary::MetaData, Shape::Plain),
    kw("deprecated", SINCE_2019, Vocabulary::MetaData, Shape::Plain),
    kw("readOnly", SINCE_7, Vocabulary::MetaData, Shape::Plain),
    kw("writeOnly", SINCE_7, Vocabulary::MetaData, Shape::Plain),
    kw("examples", SINCE_6, Vocabulary::MetaData, Shape::Plain),
    kw("format", ALL, Vocabulary::FormatAnnotation, Shape::Plain),
    kw("contentEncoding", SINCE_7, Vocabulary::Content, Shape::Plain),
    kw("contentMediaType", SINCE_7, Vocabulary::Content, Shape::Plain),
    // contentSchema is an annotation: its subschema is located (it may hold resources) but never applied.
    kw("contentSchema", SINCE_2019, Vocabulary::Content, Shape::Schema),
];

const fn kw(name: &'static str, drafts: u8, vocabulary: Vocabulary, shape: Shape) -> KeywordSpec {
    KeywordSpec {
        name,
        vocabulary,
        shape,
        semantics: Semantics::Standard,
        drafts: DraftSet(drafts),
    }
}

impl KeywordSpec {
    /// The same keyword with a draft's own meaning.
    const fn means(mut self, semantics: Semantics) -> Self {
        self.semantics = semantics;
        self
    }
}

/// The longest keyword name (`unevaluatedProperties`).
const MAX_KEYWORD_LEN: usize = 21;

/// One draft's keywords, by name length: a lookup compares a name with the few keywords of its length only.
type ByLength = [Vec<&'static KeywordSpec>; MAX_KEYWORD_LEN + 1];

/// Every draft's keywords by name length, built once from [`KEYWORDS`] (a constant of the crate).
fn by_length(draft: Draft) -> &'static ByLength {
    static TABLES: std::sync::OnceLock<Vec<ByLength>> = std::sync::OnceLock::new();
    let tables = TABLES.get_or_init(|| {
        Draft::ALL
            .iter()
            .map(|draft| {
                let mut table: ByLength = std::array::from_fn(|_| Vec::new());
                for spec in KEYWORDS.iter().filter(|spec| spec.drafts.contains(*draft)) {
                    if let Some(slot) = table.get_mut(spec.name.len()) {
                        slot.push(spec);
                    }
                }
                table
            })
            .collect()
    });
    // `Draft::ALL` lists every draft in declaration order, so a draft's index is its position there.
    let index = Draft::ALL
        .iter()
        .position(|known| *known == draft)
        .unwrap_or_default();
    &tables[index]
}

/// Looks a keyword up in a draft's table. Every member of every schema object goes through here (when a document
/// is indexed and when it compiles), so only the keywords of the name's length are compared, first byte first.
pub(crate) fn keyword(draft: Draft, name: &str) -> Option<&'static KeywordSpec> {
    let first = name.as_bytes().first()?;
    by_length(draft)
        .get(name.len())?
        .iter()
        .copied()
        .find(|spec| spec.name.as_bytes().first() == Some(first) && spec.name == name)
}

/// Every keyword a draft knows (for the misspelled-keyword lint, which looks for the one a name is one edit from).
pub(crate) fn keywords(draft: Draft) -> impl Iterator<Item = &'static KeywordSpec> {
    KEYWORDS.iter().filter(move |spec| spec.drafts.contains(draft))
}

#[cfg(test)]
mod tests {
    use super::{Draft, KEYWORDS, keyword};

    #[test]
    fn no_draft_knows_a_keyword_twice() {
        for draft in Draft::ALL {
            for (idx, spec) in KEYWORDS.iter().enumerate() {
                let later = KEYWORDS
                    .iter()
                    .skip(idx + 1)
                    .any(|other| other.name == spec.name && other.drafts.0 & spec.drafts.0 != 0);
                assert!(!later, "{} twice", spec.name);
            }
            assert!(keyword(draft, "type").is_some(), "{draft}");
        }
    }

    #[test]
    fn every_keyword_is_found_by_its_length() {
        for spec in KEYWORDS {
            assert!(spec.name.len() <= super::MAX_KEYWORD_LEN, "{}", spec.name);
            for draft in Draft::ALL {
                let found = keyword(draft, spec.name).is_some_and(|found| std::ptr::eq(found, spec));
                assert_eq!(found, spec.drafts.contains(draft), "{} in {draft}", spec.name);
            }
        }
        assert!(keyword(Draft::Draft7, "").is_none());
        assert!(keyword(Draft::Draft7, "a-name-much-longer-than-any-keyword").is_none());
    }

    #[test]
    fn each_draft_reads_its_own_keywords() {
        assert!(keyword(Draft::Draft4, "id").is_some());
        assert!(keyword(Draft::Draft4, "$id").is_none());
        assert!(keyword(Draft::Draft4, "const").is_none());
        assert!(keyword(Draft::Draft6, "if").is_none());
        assert!(keyword(Draft::Draft7, "if").is_some());
        assert!(keyword(Draft::Draft7, "dependentRequired").is_none());
        assert!(keyword(Draft::Draft201909, "prefixItems").is_none());
        assert!(keyword(Draft::Draft201909, "$recursiveRef").is_some());
        assert!(keyword(Draft::Draft202012, "$recursiveRef").is_none());
        assert!(keyword(Draft::Draft202012, "additionalItems").is_none());
    }
}
