//! A compiled schema (any draft, with every resource it reaches) as one self-contained draft 2020-12 document, for
//! consumers that take a single JSON document (a provider's structured-output API): see [`Bundle`].
//!
//! It is written from the compiled form, so it says what oa-schema evaluates: keywords a document's draft ignores
//! are gone, older drafts' keywords are in their 2020-12 form, and every reference is a local JSON Pointer. Each
//! subschema is placed where it was in the caller's schema when it can be (the root document keeps its pointers,
//! `definitions` included); a document the root refers to sits under `/$defs/NAME` at its own pointers; anything that
//! cannot sit there gets a `$defs` entry of its own. Every placed subschema records where it came from.

mod layout;
mod parts;

use crate::node::CompiledSchema;
use crate::unresolved::UnresolvedReference;
use crate::validator::Validator;
use serde_json::Value;
use std::collections::BTreeMap;

/// A compiled schema as one self-contained draft 2020-12 document ([`Validator::bundle`]).
///
/// Validating against [`schema`](Self::schema), read as 2020-12 with the same `format_assertion` option, gives the
/// verdicts the original gives, except where [`inexpressible`](Self::inexpressible) lists something; each subschema
/// of the bundle says where it came from ([`origin`](Self::origin)).
///
/// ```
/// use oa_schema::{Draft, Validator};
/// use serde_json::json;
///
/// let validator = Validator::options()
///     .base_uri("file:///schemas/order.json")
///     .resource("file:///schemas/item.json", json!({
///         "$schema": "http://json-schema.org/draft-07/schema#",
///         "definitions": { "sku": { "type": "string" } },
///         "items": [{ "$ref": "#/definitions/sku" }], "additionalItems": false
///     }))
///     .build(&json!({ "properties": { "lines": { "items": { "$ref": "item.json" } } } }))
///     .unwrap();
/// let bundle = validator.bundle();
/// assert!(bundle.inexpressible().is_empty());
/// assert_eq!(
///     bundle.schema(),
///     &json!({
///         "$schema": "https://json-schema.org/draft/2020-12/schema",
///         "properties": { "lines": { "items": { "$ref": "#/$defs/item.json" } } },
///         "$defs": { "item.json": {
///             "prefixItems": [{ "$ref": "#/$defs/item.json/definitions/sku" }],
///             "items": false,
///             "definitions": { "sku": { "type": "string" } }
///         } }
///     })
/// );
/// let origin = bundle.origin("/$defs/item.json").unwrap();
/// assert_eq!((origin.document(), origin.pointer()), ("file:///schemas/item.json", ""));
/// assert_eq!(bundle.source_keyword("/$defs/item.json", "items"), Some("additionalItems"));
/// // The bundle judges as the original does.
/// let bundled = Validator::new(bundle.schema()).unwrap();
/// for lines in [json!([["a"]]), json!([["a", 1]]), json!([[1]])] {
///     let order = json!({ "lines": lines });
///     assert_eq!(bundled.is_valid(&order), validator.is_valid(&order));
/// }
/// ```
#[derive(Debug, Clone)]
pub struct Bundle {
    schema: Value,
    subschemas: BTreeMap<String, Subschema>,
    inexpressible: Vec<Inexpressible>,
}

/// Where a subschema of a bundle came from.
#[derive(Debug, Clone)]
struct Subschema {
    origin: Origin,
    /// Keywords written from another keyword of the caller's schema: (written, original).
    renamed: Vec<(&'static str, &'static str)>,
}

/// Where a subschema of a [`Bundle`] came from in the caller's schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    document: String,
    root: bool,
    pointer: String,
}

impl Origin {
    /// The URI of the document it is in, as locations show it: empty for a root schema compiled without a base
    /// URI.
    pub fn document(&self) -> &str {
        &self.document
    }

    /// Whether that document is the root schema (the one passed to `build`), rather than one it refers to.
    pub fn in_root_document(&self) -> bool {
        self.root
    }

    /// Its JSON Pointer in that document (`""` for the document's root).
    pub fn pointer(&self) -> &str {
        &self.pointer
    }
}

/// What a [`Bundle`] cannot say as the original means it: the bundle holds something else there (named below), so a
/// verdict of the bundle may differ from the original's where it applies.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Inexpressible {
    /// A `$dynamicRef` (or 2019-09 `$recursiveRef`) whose target depends on the dynamic scope: the bundle has a
    /// `$ref` to its initial target.
    DynamicReference {
        /// The subschema of the bundle that holds it.
        pointer: String,
        /// Where that subschema came from.
        origin: Origin,
        /// `$dynamicRef` or `$recursiveRef`.
        keyword: &'static str,
    },
    /// A reference that resolves to no schema (compiled with
    /// [`defer_unresolved_references`](crate::ValidatorOptions::defer_unresolved_references)): the bundle leaves it
    /// out, as if it were `{}`.
    UnresolvedReference {
        /// The subschema of the bundle that held it.
        pointer: String,
        /// The reference.
        reference: UnresolvedReference,
    },
    /// 2019-09's `contains`, whose matching items `unevaluatedItems` does not count as evaluated (2020-12 counts
    /// them), in a schema that uses `unevaluatedItems`.
    ContainsNotEvaluating {
        /// The subschema of the bundle that holds it.
        pointer: String,
        /// Where that subschema came from.
        origin: Origin,
    },
    /// `format` asserted because the schema's meta-schema lists the format-assertion vocabulary: a 2020-12 reader
    /// takes the bundle's `format` as an annotation unless told to assert it.
    FormatAssertion {
        /// The subschema of the bundle that holds it.
        pointer: String,
        /// Where that subschema came from.
        origin: Origin,
    },
}

impl Bundle {
    /// The bundle: one draft 2020-12 document, `$schema` at its root (unless the root is a boolean schema), every
    /// reference a local `#/...` JSON Pointer, no `$id` or `$anchor`.
    pub fn schema(&self) -> &Value {
        &self.schema
    }

    /// The bundle, taken.
    pub fn into_schema(self) -> Value {
        self.schema
    }

    /// Where the subschema at `pointer` (a JSON Pointer into [`schema`](Self::schema)) came from; `None` when no
    /// subschema sits there. An `allOf` member the bundle made to hold a keyword whose place was taken (a `$ref`
    /// beside a `$dynamicRef`) has its node's origin.
    pub fn origin(&self, pointer: &str) -> Option<&Origin> {
        self.subschemas.get(pointer).map(|subschema| &subschema.origin)
    }

    /// The keyword of the caller's schema that `keyword` of the subschema at `pointer` was written from: itself,
    /// or the older draft's keyword it replaces (`prefixItems` from an array `items`, `items` from
    /// `additionalItems`, `dependentRequired`/`dependentSchemas` from `dependencies`, `exclusiveMinimum` from draft
    /// 4's `minimum` with `exclusiveMinimum: true`, `$ref` from `$dynamicRef` or `$recursiveRef`). `None` when no
    /// subschema sits at `pointer`.
    pub fn source_keyword<'k>(&self, pointer: &str, keyword: &'k str) -> Option<&'k str> {
        let subschema = self.subschemas.get(pointer)?;
        Some(
            subschema
                .renamed
                .iter()
                .find(|(written, _)| *written == keyword)
                .map_or(keyword, |(_, original)| original),
        )
    }

    /// Every subschema of the bundle, by pointer, with its origin.
    pub fn subschemas(&self) -> impl Iterator<Item = (&str, &Origin)> {
        self.subschemas
            .iter()
            .map(|(pointer, subschema)| (pointer.as_str(), &subschema.origin))
    }

    /// What the bundle cannot say as the original means it (empty for nearly every schema).
    pub fn inexpressible(&self) -> &[Inexpressible] {
        &self.inexpressible
    }
}

impl Validator {
    /// This schema, with every resource it reaches, as one self-contained draft 2020-12 document (see [`Bundle`]).
    pub fn bundle(&self) -> Bundle {
        layout::bundle(self.compiled())
    }
}

/// The origin of node `id`: its document and its pointer there.
fn origin_of(schema: &CompiledSchema, id: crate::node::NodeId) -> Origin {
    let node = &schema.nodes[id as usize];
    let resource = schema.resources.get(node.resource as usize);
    let document = resource.map_or(0, |resource| resource.document);
    let within = node.fragment().strip_prefix('#').unwrap_or_default();
    let within = percent_encoding::percent_decode_str(within).decode_utf8_lossy();
    Origin {
        document: schema
            .documents
            .get(document as usize)
            .map_or_else(String::new, |uri| uri.to_string()),
        root: document == 0,
        pointer: format!(
            "{}{within}",
            resource.map_or("", |resource| &resource.root_pointer)
        ),
    }
}
