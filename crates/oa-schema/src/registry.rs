//! Schema documents and their resources: base URIs, `$id`, anchors and JSON Pointer fragments.
//!
//! Every document is walked once, keyword table in hand, to find its subschemas: their base URI, the resource
//! they belong to, and the anchors they declare. `$id` inside a value that is not a schema (under `const`, or an
//! unknown keyword) is therefore never mistaken for a resource. Documents are never fetched: a reference resolves
//! only to the schema being compiled, a registered resource, or a bundled meta-schema.

use crate::dialect::{self, Dialect, Shape, VocabularySet};
use crate::draft::Draft;
use crate::error::SchemaError;
use crate::metaschemas::bundled_value;
use crate::retrieve::RetrieveError;
use crate::unresolved::UnresolvedCause;
use foldhash::{HashMap, HashMapExt as _};
use percent_encoding::percent_decode_str;
use serde_json::Value;
use std::fmt::Write as _;
use std::sync::Arc;
use url::Url;

/// The base URI of a document that has neither `$id` nor a retrieval URI.
pub(crate) const DEFAULT_BASE: &str = "json-schema:///";

/// The deepest subschema nesting the compiler accepts.
pub(crate) const MAX_SCHEMA_DEPTH: usize = 256;

/// Index of a document in the registry.
pub(crate) type DocId = usize;

/// A subschema's place: which resource it belongs to and how it hangs from its parent. Both are parts of the
/// subschema's own JSON Pointer, kept as offsets into it so that a place costs no allocation.
#[derive(Debug, Clone)]
pub(crate) struct Place {
    /// The base URI in force (the resource's URI).
    pub(crate) base: Arc<Url>,
    /// The length of the resource root's pointer, a prefix of the subschema's pointer.
    root_len: u32,
    /// Where the path from the lexical parent schema (`/properties/a`) starts in the subschema's pointer.
    relative_start: u32,
}

impl Place {
    fn new(base: Arc<Url>, root_len: usize, relative_start: usize) -> Self {
        // Offsets into a pointer of 4 GiB or more saturate; `get` on them then falls back to the whole pointer.
        let narrow = |offset: usize| u32::try_from(offset).unwrap_or(u32::MAX);
        Self {
            base,
            root_len: narrow(root_len),
            relative_start: narrow(relative_start),
        }
    }

    /// The length of the resource root's pointer, a prefix of the subschema's pointer.
    pub(crate) fn root_len(&self) -> usize {
        self.root_len as usize
    }

    /// Where the path from the lexical parent schema starts in the subschema's pointer.
    pub(crate) fn relative_start(&self) -> usize {
        self.relative_start as usize
    }
}

/// A subschema's key in the index: the address of its value. Documents are borrowed for the whole compilation,
/// so an address names one subschema for as long as the index lives, and the index keeps no pointer text.
pub(crate) fn value_key(value: &Value) -> usize {
    std::ptr::from_ref(value) as usize
}

/// The name under which a resource root's `$recursiveAnchor: true` (2019-09) is kept among the dynamic anchors:
/// no `$dynamicAnchor` can be empty, and `$recursiveRef` then finds it exactly as `$dynamicRef` finds an anchor.
pub(crate) const RECURSIVE_ANCHOR: &str = "";

/// One loaded document.
#[derive(Debug)]
struct Document<'a> {
    value: &'a Value,
    dialect: Dialect,
    /// The URI it was loaded under, as locations show it.
    shown: Box<str>,
}

/// Every document a compilation can reach, indexed.
#[derive(Debug)]
pub(crate) struct Registry<'a> {
    documents: Vec<Document<'a>>,
    /// Registered resources not yet loaded, by normalized URI.
    available: &'a std::collections::HashMap<String, Arc<Value>>,
    /// What the caller's retriever answered in earlier passes, and the URIs this pass still wants from it.
    retrieved: &'a Retrieved,
    /// The draft of a document that declares no `$schema`.
    default_draft: Draft,
    by_uri: HashMap<String, (DocId, String)>,
    anchors: HashMap<(String, String), (DocId, String)>,
    dynamic_anchors: HashMap<String, Vec<(String, DocId, String)>>,
    /// Per document, the place of every subschema, by [`value_key`].
    places: Vec<HashMap<usize, Place>>,
}

/// Parses a URI and drops its fragment: the key documents and resources are registered under.
pub(crate) fn normalize_uri(uri: &str) -> Result<Url, url::ParseError> {
    let mut url = Url::parse(uri)?;
    url.set_fragment(None);
    Ok(url)
}

impl<'a> Registry<'a> {
    /// An empty registry that may load `available` resources, and documents `retrieved` holds, on demand;
    /// documents without `$schema` are read as `default_draft`.
    pub(crate) fn new(
        available: &'a std::collections::HashMap<String, Arc<Value>>,
        retrieved: &'a Retrieved,
        default_draft: Draft,
    ) -> Self {
        Self {
            // Most compilations read one document: room for more is made when a reference loads another.
            documents: Vec::with_capacity(1),
            available,
            retrieved,
            default_draft,
            by_uri: HashMap::new(),
            anchors: HashMap::new(),
            dynamic_anchors: HashMap::new(),
            places: Vec::with_capacity(1),
        }
    }

    /// Loads and indexes a document retrieved from `uri`.
    pub(crate) fn add_document(&mut self, value: &'a Value, uri: Url) -> Result<DocId, SchemaError> {
        let doc_id = self.documents.len();
        let dialect = self.dialect_for(value, &uri)?;
        let shown = display_base(&uri).into();
        self.documents.push(Document {
            value,
            dialect,
            shown,
        });
        self.places.push(HashMap::new());
        self.by_uri
            .entry(uri.as_str().to_owned())
            .or_insert((doc_id, String::new()));
        self.index(doc_id, value, Arc::new(uri), dialect.draft)?;
        Ok(doc_id)
    }

    /// The value at a place, if present.
    pub(crate) fn value(&self, doc_id: DocId, pointer: &str) -> Option<&'a Value> {
        self.documents
            .get(doc_id)
            .and_then(|doc| pointer_get(doc.value, pointer))
    }

    /// The URI each document was loaded under, as locations show it (empty for the anonymous base), by [`DocId`].
    pub(crate) fn document_uris(&self) -> Box<[Box<str>]> {
        self.documents.iter().map(|doc| doc.shown.clone()).collect()
    }

    /// How many subschemas indexing found in a document.
    pub(crate) fn n_subschemas(&self, doc_id: DocId) -> usize {
        self.places.get(doc_id).map_or(0, HashMap::len)
    }

    /// What a document is read as.
    pub(crate) fn dialect(&self, doc_id: DocId) -> Dialect {
        self.documents
            .get(doc_id)
            .map_or(Dialect::of(self.default_draft), |doc| doc.dialect)
    }

    /// The place of the subschema `value` at `pointer`; a location that was not indexed (under an unknown keyword)
    /// takes the place of its nearest indexed ancestor.
    pub(crate) fn place(&self, doc_id: DocId, pointer: &str, value: Option<&Value>) -> Place {
        let places = self.places.get(doc_id);
        if let Some(place) = value.and_then(|value| places?.get(&value_key(value))) {
            return place.clone();
        }
        // Rare (a reference into a value no keyword declares a schema): each ancestor is looked up from the root.
        let mut prefix = pointer;
        while let Some(cut) = prefix.rfind('/') {
            prefix = &prefix[..cut];
            let ancestor = self.value(doc_id, prefix);
            if let Some(place) = ancestor.and_then(|ancestor| places?.get(&value_key(ancestor))) {
                return Place::new(
                    Arc::clone(&place.base),
                    place.root_len(),
                    pointer.rfind('/').unwrap_or(pointer.len()),
                );
            }
        }
        Place::new(Arc::new(default_base()), 0, pointer.len())
    }

    /// The dynamic anchors a resource declares: name and place.
    pub(crate) fn dynamic_anchors(&self, resource_uri: &str) -> &[(String, DocId, String)] {
        self.dynamic_anchors.get(resource_uri).map_or(&[], Vec::as_slice)
    }

    /// Resolves a reference against a base URI to a document place.
    ///
    /// # Errors
    /// `Ok(Err)` when nothing is there (with the target and why); `Err` for a malformed URI or a dialect we cannot
    /// load.
    pub(crate) fn resolve(
        &mut self,
        base: &Url,
        reference: &str,
    ) -> Result<Result<(DocId, String), Miss>, ResolveError> {
        let mut url = base
            .join(reference)
            .map_err(|err| ResolveError::Uri(err.to_string()))?;
        let target = url.clone();
        let miss = |cause| Miss { uri: target, cause };
        let fragment = url
            .fragment()
            .map(|raw| percent_decode_str(raw).decode_utf8_lossy().into_owned());
        url.set_fragment(None);
        let (doc_id, root) = match self.locate(&url).map_err(ResolveError::Schema)? {
            Ok(found) => found,
            Err(cause) => return Ok(Err(miss(cause))),
        };
        let fragment = fragment.unwrap_or_default();
        if fragment.is_empty() {
            return Ok(Ok((doc_id, root)));
        }
        let found = if fragment.starts_with('/') {
            let pointer = format!("{root}{fragment}");
            self.value(doc_id, &pointer).map(|_| (doc_id, pointer))
        } else {
            self.anchors.get(&(url.as_str().to_owned(), fragment)).cloned()
        };
        Ok(found.ok_or_else(|| miss(UnresolvedCause::NotInDocument)))
    }

    /// Finds (loading on demand) the resource registered under a fragment-free URI, or why there is none.
    fn locate(&mut self, url: &Url) -> Result<Result<(DocId, String), UnresolvedCause>, SchemaError> {
        if let Some(found) = self.by_uri.get(url.as_str()) {
            return Ok(Ok(found.clone()));
        }
        let Some(value) = self.held(url.as_str()) else {
            return Ok(Err(self.retrieved.cause(url.as_str())));
        };
        self.add_document(value, url.clone())?;
        Ok(self
            .by_uri
            .get(url.as_str())
            .cloned()
            .ok_or(UnresolvedCause::NoDocument))
    }

    /// The document held under a fragment-free URI: registered, retrieved in an earlier pass, or a bundled
    /// meta-schema.
    fn held(&self, uri: &str) -> Option<&'a Value> {
        self.supplied(uri).or_else(|| bundled_value(uri))
    }

    /// The document the caller supplied under a fragment-free URI: registered, or retrieved in an earlier pass.
    fn supplied(&self, uri: &str) -> Option<&'a Value> {
        let available = self.available;
        let retrieved = self.retrieved;
        available
            .get(uri)
            .or_else(|| retrieved.documents.get(uri))
            .map(|value| &**value)
    }

    /// Whether the retriever is still to be asked for a URI this pass needed (a later pass then retries).
    pub(crate) fn is_pending(&self, uri: &Url) -> bool {
        let mut url = uri.clone();
        url.set_fragment(None);
        self.retrieved.is_wanted(url.as_str())
    }

    /// What a document's `$schema` makes it: one of the drafts, or a registered meta-schema of one of them (whose
    /// `$vocabulary` then decides the vocabularies, from 2019-09 on); none means the default draft.
    fn dialect_for(&self, value: &Value, uri: &Url) -> Result<Dialect, SchemaError> {
        let Some(Value::String(declared)) = value.get("$schema") else {
            return Ok(Dialect::of(self.default_draft));
        };
        if let Some(draft) = Draft::from_uri(declared) {
            return Ok(Dialect::of(draft));
        }
        let location = format!("{}#/$schema", display_base(uri));
        let meta_uri = normalize_uri(declared).map_err(|err| SchemaError::InvalidUri {
            location: location.clone(),
            uri: redact(declared),
            reason: err.to_string(),
        })?;
        // Neither a draft nor a registered meta-schema (draft 3, a misspelling, a meta-schema not passed in).
        let Some(meta) = self.supplied(meta_uri.as_str()) else {
            // Wanted from the retriever, if there is one: a later pass then reads the schema with it.
            let _ = self.retrieved.cause(meta_uri.as_str());
            return Err(SchemaError::UnsupportedDialect {
                location,
                dialect: redact(declared),
            });
        };
        let draft = match meta.get("$schema") {
            Some(Value::String(meta_dialect)) => match Draft::from_uri(meta_dialect) {
                Some(draft) => draft,
                // A meta-schema that describes itself.
                None if normalize_uri(meta_dialect).is_ok_and(|own| own == meta_uri) => self.default_draft,
                None => {
                    return Err(SchemaError::UnsupportedDialect {
                        location,
                        dialect: redact(meta_dialect),
                    });
                }
            },
            _ => self.default_draft,
        };
        let listed = match meta.get("$vocabulary") {
            Some(Value::Object(listed)) if draft >= Draft::Draft201909 => listed,
            _ => return Ok(Dialect::of(draft)),
        };
        let mut vocabularies = VocabularySet::CORE;
        for (vocabulary_uri, required) in listed {
            match dialect::vocabulary_by_uri(vocabulary_uri) {
                Some(vocabulary) => vocabularies.insert(vocabulary),
                None if *required == Value::Bool(true) => {
                    return Err(SchemaError::UnsupportedVocabulary {
                        location: format!("{}#/$vocabulary", redact(meta_uri.as_str())),
                        vocabulary: redact(vocabulary_uri),
                    });
                }
                None => {}
            }
        }
        Ok(Dialect { draft, vocabularies })
    }

    /// Walks a document's subschemas (without recursion), recording places, resources and anchors.
    fn index(
        &mut self,
        doc_id: DocId,
        root: &'a Value,
        base: Arc<Url>,
        draft: Draft,
    ) -> Result<(), SchemaError> {
        let ref_overrides = draft.ref_overrides_siblings();
        let ids_declare_anchors = draft.ids_declare_anchors();
        struct Item<'v> {
            pointer: String,
            value: &'v Value,
            base: Arc<Url>,
            root_len: usize,
            relative_start: usize,
            depth: usize,
        }
        // Sized for a small document's fan-out up front: growing a stack of these items one doubling at a time was
        // a fifth of a small schema's compile, but room for 64 (4 KiB) was most of its compile's peak memory.
        let mut stack = Vec::with_capacity(16);
        stack.push(Item {
            pointer: String::new(),
            value: root,
            base,
            root_len: 0,
            relative_start: 0,
            depth: 0,
        });
        while let Some(item) = stack.pop() {
            if item.depth > MAX_SCHEMA_DEPTH {
                return Err(SchemaError::TooDeep {
                    location: format!("{}#{}", display_base(&item.base), item.pointer),
                    limit: MAX_SCHEMA_DEPTH,
                });
            }
            let Value::Object(object) = item.value else {
                self.places[doc_id].insert(
                    value_key(item.value),
                    Place::new(item.base, item.root_len, item.relative_start),
                );
                continue;
            };
            // Before 2019-09 a `$ref` makes its siblings ignored, its `$id` included.
            let id = match object.get(draft.id_keyword()) {
                Some(Value::String(id)) if !(ref_overrides && object.contains_key("$ref")) => Some(id),
                _ => None,
            };
            let (base, root_len) = match id {
                Some(id) => {
                    let mut url = item.base.join(id).map_err(|err| SchemaError::InvalidUri {
                        location: format!(
                            "{}#{}/{}",
                            display_base(&item.base),
                            item.pointer,
                            draft.id_keyword()
                        ),
                        uri: redact(id),
                        reason: err.to_string(),
                    })?;
                    let fragment = url
                        .fragment()
                        .filter(|fragment| !fragment.is_empty() && ids_declare_anchors)
                        .map(|fragment| percent_decode_str(fragment).decode_utf8_lossy().into_owned());
                    url.set_fragment(None);
                    // `"$id": "#name"` (before 2019-09) only names an anchor: the base stays.
                    let (base, root_len) = if id.starts_with('#') {
                        (item.base, item.root_len)
                    } else {
                        self.by_uri
                            .insert(url.as_str().to_owned(), (doc_id, item.pointer.clone()));
                        (Arc::new(url), item.pointer.len())
                    };
                    if let Some(fragment) = fragment {
                        self.anchors.insert(
                            (base.as_str().to_owned(), fragment),
                            (doc_id, item.pointer.clone()),
                        );
                    }
                    (base, root_len)
                }
                None => (item.base, item.root_len),
            };
            let is_resource_root = item.pointer.len() == root_len;
            for (key, child) in object {
                let Some(spec) = dialect::keyword(draft, key) else {
                    continue;
                };
                match (spec.name, child) {
                    ("$anchor", Value::String(anchor)) => {
                        self.anchors.insert(
                            (base.as_str().to_owned(), anchor.clone()),
                            (doc_id, item.pointer.clone()),
                        );
                    }
                    ("$dynamicAnchor", Value::String(anchor)) => {
                        self.anchors.insert(
                            (base.as_str().to_owned(), anchor.clone()),
                            (doc_id, item.pointer.clone()),
                        );
                        self.dynamic_anchors
                            .entry(base.as_str().to_owned())
                            .or_default()
                            .push((anchor.clone(), doc_id, item.pointer.clone()));
                    }
                    // Only a resource's root may declare it.
                    ("$recursiveAnchor", Value::Bool(true)) if is_resource_root => {
                        self.dynamic_anchors
                            .entry(base.as_str().to_owned())
                            .or_default()
                            .push((RECURSIVE_ANCHOR.to_owned(), doc_id, item.pointer.clone()));
                    }
                    _ => {}
                }
                if spec.shape == Shape::Plain {
                    continue;
                }
                let escaped = escape_token(key);
                let mut push = |member: Option<&str>, value: &'a Value| {
                    let member_len = member.map_or(0, |member| member.len() + 1);
                    let mut pointer =
                        String::with_capacity(item.pointer.len() + escaped.len() + 1 + member_len);
                    pointer.push_str(&item.pointer);
                    pointer.push('/');
                    pointer.push_str(&escaped);
                    if let Some(member) = member {
                        pointer.push('/');
                        pointer.push_str(member);
                    }
                    stack.push(Item {
                        pointer,
                        value,
                        base: Arc::clone(&base),
                        root_len,
                        relative_start: item.pointer.len(),
                        depth: item.depth + 1,
                    });
                };
                match (spec.shape, child) {
                    (Shape::Schema, _) => push(None, child),
                    (Shape::SchemaArray | Shape::SchemaOrArray, Value::Array(children)) => {
                        let mut idx_text = String::new();
                        for (idx, grandchild) in children.iter().enumerate() {
                            idx_text.clear();
                            let _ = write!(idx_text, "{idx}");
                            push(Some(&idx_text), grandchild);
                        }
                    }
                    (Shape::SchemaMap, Value::Object(children)) => {
                        for (name, grandchild) in children {
                            push(Some(&escape_token(name)), grandchild);
                        }
                    }
                    (Shape::SchemaOrArray, _) => push(None, child),
                    _ => {}
                }
            }
            self.places[doc_id].insert(
                value_key(item.value),
                Place::new(Arc::clone(&base), root_len, item.relative_start),
            );
        }
        Ok(())
    }
}

/// What a caller's retriever supplied over the passes of one build (see `ValidatorOptions::build`): a pass that
/// needs a URI nothing holds records it as wanted and goes on as if it were missing; the build then asks the
/// retriever for every wanted URI at once and compiles again, until a pass wants nothing new.
#[derive(Debug, Default)]
pub(crate) struct Retrieved {
    /// Whether there is a retriever to ask.
    pub(crate) active: bool,
    /// The documents it supplied, by fragment-free URI.
    pub(crate) documents: std::collections::HashMap<String, Arc<Value>>,
    /// The URIs it had no document for (`None`) or failed on.
    pub(crate) missing: std::collections::HashMap<String, Option<RetrieveError>>,
    /// URIs the current pass needed and the retriever has not been asked for.
    wanted: std::cell::RefCell<Vec<String>>,
}

impl Retrieved {
    /// Nothing retrieved yet; `active` when there is a retriever to ask.
    pub(crate) fn new(active: bool) -> Self {
        Self {
            active,
            ..Self::default()
        }
    }

    /// Why nothing is held under a fragment-free URI; with a retriever not yet asked, the URI is wanted.
    fn cause(&self, uri: &str) -> UnresolvedCause {
        match self.missing.get(uri) {
            Some(Some(error)) => UnresolvedCause::Retrieval(error.clone()),
            Some(None) => UnresolvedCause::NoDocument,
            None => {
                if self.active {
                    let mut wanted = self.wanted.borrow_mut();
                    if !wanted.iter().any(|known| known == uri) {
                        wanted.push(uri.to_owned());
                    }
                }
                UnresolvedCause::NoDocument
            }
        }
    }

    fn is_wanted(&self, uri: &str) -> bool {
        self.wanted.borrow().iter().any(|known| known == uri)
    }

    /// The URIs the last pass wanted, in the order it met them.
    pub(crate) fn take_wanted(&self) -> Vec<String> {
        self.wanted.take()
    }
}

/// A reference that resolves to no schema: its target URI and why.
#[derive(Debug)]
pub(crate) struct Miss {
    /// The absolute URI the reference resolves to, fragment included.
    pub(crate) uri: Url,
    pub(crate) cause: UnresolvedCause,
}

/// Why a reference could not be resolved at all.
#[derive(Debug)]
pub(crate) enum ResolveError {
    /// The reference is not a URI reference.
    Uri(String),
    /// Loading the target document failed.
    Schema(SchemaError),
}

/// The base used when a document has no URI at all.
#[allow(clippy::expect_used)] // DEFAULT_BASE is a constant, valid absolute URI (pinned by a test).
pub(crate) fn default_base() -> Url {
    Url::parse(DEFAULT_BASE).expect("DEFAULT_BASE is a valid URI")
}

/// The base as shown in locations: empty for the anonymous default base.
pub(crate) fn display_base(base: &Url) -> String {
    if base.as_str() == DEFAULT_BASE {
        String::new()
    } else {
        redact(base.as_str())
    }
}

/// A URI or reference as shown in errors and locations: a query (which may carry a secret) is replaced by
/// `?redacted`; the fragment is kept.
pub(crate) fn redact(uri: &str) -> String {
    let fragment_at = uri.find('#').unwrap_or(uri.len());
    match uri[..fragment_at].find('?') {
        Some(query_at) => format!("{}?redacted{}", &uri[..query_at], &uri[fragment_at..]),
        None => uri.to_owned(),
    }
}
/// Escapes a JSON Pointer token (`~` as `~0`, `/` as `~1`).
pub(crate) fn escape_token(token: &str) -> std::borrow::Cow<'_, str> {
    if token.contains(['~', '/']) {
        token.replace('~', "~0").replace('/', "~1").into()
    } else {
        token.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_base_parses_and_resolves_relative_references() {
        let base = default_base();
        assert_eq!(
            base.join("tree.json").unwrap().as_str(),
            "json-schema:///tree.json"
        );
    }

    #[test]
    fn queries_are_redacted_fragments_kept() {
        assert_eq!(
            redact("https://x.test/s.json?key=secret#/a?b"),
            "https://x.test/s.json?redacted#/a?b"
        );
        assert_eq!(redact("https://x.test/s.json#/a"), "https://x.test/s.json#/a");
        assert_eq!(redact("#/defs?x"), "#/defs?x");
    }

    #[test]
    fn tokens_are_escaped() {
        assert_eq!(escape_token("a/b~c"), "a~1b~0c");
        assert_eq!(escape_token("plain"), "plain");
    }
}

/// `Value::pointer` without its per-token allocations: a token is unescaped only when it contains `~`. Compiling
/// looks up every subschema by its pointer, so this walk is on the compile path of every node.
fn pointer_get<'a>(value: &'a Value, pointer: &str) -> Option<&'a Value> {
    if pointer.is_empty() {
        return Some(value);
    }
    let rest = pointer.strip_prefix('/')?;
    let mut target = value;
    for token in rest.split('/') {
        let token: std::borrow::Cow<'_, str> = if token.contains('~') {
            std::borrow::Cow::Owned(token.replace("~1", "/").replace("~0", "~"))
        } else {
            std::borrow::Cow::Borrowed(token)
        };
        target = match target {
            Value::Object(map) => map.get(token.as_ref())?,
            Value::Array(items) => items.get(array_index(&token)?)?,
            _ => return None,
        };
    }
    Some(target)
}

/// The value below `value` at raw (unescaped) `segments`, as [`Registry::value`] finds it from the document root,
/// without walking down from the root again.
pub(crate) fn child_value<'a>(value: &'a Value, segments: &[&str]) -> Option<&'a Value> {
    let mut target = value;
    for segment in segments {
        target = match target {
            Value::Object(map) => map.get(*segment)?,
            Value::Array(items) => items.get(array_index(segment)?)?,
            _ => return None,
        };
    }
    Some(target)
}

/// An RFC 6901 array index: digits without a sign or a leading zero.
fn array_index(token: &str) -> Option<usize> {
    if token.is_empty() || token.starts_with('+') || (token.starts_with('0') && token.len() != 1) {
        return None;
    }
    token.parse().ok()
}

#[cfg(test)]
mod pointer_tests {
    use super::pointer_get;
    use serde_json::json;

    #[test]
    fn pointer_get_agrees_with_serde_json() {
        let doc = json!({"a/b": {"m~n": [10, {"": 3}]}, "x": [1, 2], "": {"k": true}});
        for pointer in [
            "",
            "/a~1b",
            "/a~1b/m~0n",
            "/a~1b/m~0n/1/",
            "/x/0",
            "/x/01",
            "/x/+1",
            "/x/2",
            "/x/-",
            "//k",
            "/nope",
            "x",
            "/x/1/y",
        ] {
            assert_eq!(
                pointer_get(&doc, pointer),
                doc.pointer(pointer),
                "pointer {pointer:?}"
            );
        }
    }
}
