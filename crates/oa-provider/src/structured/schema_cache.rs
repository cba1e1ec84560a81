//! Compiled response schemas shared by every call in the process: a schema is checked, compiled and given its
//! schema_version once per distinct schema, then reused, so a call with a schema seen before pays neither the
//! compilation nor the canonical serialisation and SHA-256 of its version.
//!
//! Entries are keyed by schema_version and the identity of the options the schema is compiled with (the
//! request's shared `ValidatorOptions`: draft, resources, retriever, base URI, format assertion; `0` for none), so
//! two requests that would compile differently never share an entry. Options are known by their `Arc`'s address,
//! which the entry keeps alive, so a caller sharing one set of options shares the entries, and options built afresh
//! compile afresh (never a wrong entry). A call finds its entry through a structural hash of the schema it holds,
//! confirmed by equality with the entry's schema (so a hash collision only costs a miss); on a miss the schema's
//! canonical text and its version are computed and the version looked up, so the same schema written with its keys in another order still reuses the entry. The
//! cache holds at most [`MAX_SCHEMAS`] schemas and starts afresh when full, so memory stays bounded however many
//! distinct schemas a process sends.
//!
//! Before any of that, a schema shared as an `Arc` (requests sharing one, or one request sent again) is found by
//! its pointer alone: the cache keeps a clone of each of the last [`MAX_SHARED`] such `Arc`s it answered, so the
//! allocation can neither be freed nor changed in place (`Arc::get_mut` refuses, `Arc::make_mut` copies) while
//! its pointer is known here, and the same pointer is the same schema.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hash, Hasher};
use std::sync::{Arc, LazyLock, Mutex, PoisonError};

use serde_json::Value;

/// Distinct schemas kept at once.
pub(crate) const MAX_SCHEMAS: usize = 256;

/// Shared schema `Arc`s known by pointer at once; a caller that makes a new `Arc` per call churns through these
/// (each a schema the caller would have dropped anyway) without touching the compiled entries.
pub(crate) const MAX_SHARED: usize = 32;

/// An entry's key: the schema's version and the identity of its options.
type Key = (String, usize);

#[derive(Debug, Default)]
struct Cache<T> {
    by_version: HashMap<Key, Arc<T>>,
    /// Structural hash → keys of the entries with that hash.
    by_hash: HashMap<u64, Vec<Key>>,
    /// Shared schemas answered before, held (so their pointers stay theirs), with their entries.
    by_pointer: Vec<(Arc<Value>, Arc<T>)>,
}

/// A bounded map from schema_version to a value built from the schema (the compiled schema).
#[derive(Debug)]
pub(crate) struct SchemaCache<T> {
    cache: LazyLock<Mutex<Cache<T>>>,
}

/// What the cache needs of an entry: the schema it was built from, and the identity of the options it was compiled
/// with (`0`: none), which the entry must keep alive.
pub(crate) trait Entry {
    fn schema(&self) -> &Value;
    fn options_id(&self) -> usize {
        0
    }
}

/// What a schema is known by, computed once per distinct schema and handed to the entry's build.
#[derive(Debug)]
pub(crate) struct Identity {
    /// The schema's canonical JSON text (`crate::canonical::to_string`).
    pub(crate) canonical: String,
    /// Its schema_version: the SHA-256 of `canonical`.
    pub(crate) version: String,
}

impl Identity {
    fn of(schema: &Value) -> Self {
        let canonical = crate::canonical::to_string(schema);
        let version = crate::enforcement::version_of_canonical(&canonical);
        Self { canonical, version }
    }
}

impl<T: Entry> SchemaCache<T> {
    pub(crate) const fn new() -> Self {
        Self {
            cache: LazyLock::new(|| {
                Mutex::new(Cache {
                    by_version: HashMap::new(),
                    by_hash: HashMap::new(),
                    by_pointer: Vec::new(),
                })
            }),
        }
    }

    /// The entry for a schema shared as an `Arc`: found by its pointer when this `Arc` was answered before,
    /// otherwise as [`get_or_build`](Self::get_or_build) finds or builds it, and then known by its pointer.
    pub(crate) fn get_or_build_shared<E>(
        &self,
        schema: &Arc<Value>,
        options_id: usize,
        build: impl FnOnce(Identity) -> Result<T, E>,
    ) -> Result<Arc<T>, E> {
        {
            let cache = self.lock();
            let known = cache
                .by_pointer
                .iter()
                .find(|(shared, entry)| Arc::ptr_eq(shared, schema) && entry.options_id() == options_id);
            if let Some((_, entry)) = known {
                return Ok(Arc::clone(entry));
            }
        }
        let entry = self.get_or_build(schema, options_id, build)?;
        let mut cache = self.lock();
        if cache.by_pointer.len() >= MAX_SHARED {
            cache.by_pointer.clear();
        }
        cache.by_pointer.push((Arc::clone(schema), Arc::clone(&entry)));
        Ok(entry)
    }

    /// The entry for `schema`, built by `build(identity)` on the first call with this schema_version. A build
    /// error is returned and nothing is cached.
    pub(crate) fn get_or_build<E>(
        &self,
        schema: &Value,
        options_id: usize,
        build: impl FnOnce(Identity) -> Result<T, E>,
    ) -> Result<Arc<T>, E> {
        let hash = structural_hash(schema) ^ (options_id as u64).rotate_left(17);
        {
            let cache = self.lock();
            let found = cache.by_hash.get(&hash).into_iter().flatten().find_map(|key| {
                cache
                    .by_version
                    .get(key)
                    .filter(|entry| entry.options_id() == options_id && entry.schema() == schema)
            });
            if let Some(entry) = found {
                return Ok(Arc::clone(entry));
            }
        }
        let identity = Identity::of(schema);
        let key = (identity.version.clone(), options_id);
        {
            let mut cache = self.lock();
            if let Some(entry) = cache.by_version.get(&key).cloned() {
                // The same schema in another key order: found by its version, and by this hash from now on.
                cache.by_hash.entry(hash).or_default().push(key);
                return Ok(entry);
            }
        }
        // Built outside the lock: other calls go on while a large schema compiles.
        let entry = Arc::new(build(identity)?);
        let mut cache = self.lock();
        if cache.by_version.len() >= MAX_SCHEMAS {
            cache.by_version.clear();
            cache.by_hash.clear();
            cache.by_pointer.clear();
        }
        cache.by_hash.entry(hash).or_default().push(key.clone());
        let entry = Arc::clone(cache.by_version.entry(key).or_insert(entry));
        Ok(entry)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Cache<T>> {
        self.cache.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A hash of the value's structure and content, in its own key order (iterative: no recursion on deep values).
/// foldhash, not SipHash: it runs on every structured call over the whole schema, and a collision (even a crafted
/// one) only costs a miss, which the version lookup then answers.
fn structural_hash(value: &Value) -> u64 {
    let mut hasher = foldhash::fast::FixedState::with_seed(0x6f61_7363_6865_6d61).build_hasher();
    let mut pending = vec![value];
    while let Some(value) = pending.pop() {
        match value {
            Value::Null => 0u8.hash(&mut hasher),
            Value::Bool(flag) => (1u8, *flag).hash(&mut hasher),
            // Number's own Hash agrees with its Eq (the equality that confirms a hit), with no float parsing.
            Value::Number(number) => (2u8, number).hash(&mut hasher),
            Value::String(text) => (3u8, text).hash(&mut hasher),
            Value::Array(items) => {
                (4u8, items.len()).hash(&mut hasher);
                pending.extend(items.iter().rev());
            }
            Value::Object(map) => {
                (5u8, map.len()).hash(&mut hasher);
                for (key, member) in map {
                    key.hash(&mut hasher);
                    pending.push(member);
                }
            }
        }
    }
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[derive(Debug)]
    struct Built(Value);

    impl Entry for Built {
        fn schema(&self) -> &Value {
            &self.0
        }
    }

    fn get(cache: &SchemaCache<Built>, schema: &Value, builds: &mut usize) -> Arc<Built> {
        cache
            .get_or_build(schema, 0, |_| {
                *builds += 1;
                Ok::<_, ()>(Built(schema.clone()))
            })
            .unwrap()
    }

    #[test]
    fn a_schema_is_built_once_and_found_again_whatever_its_key_order() {
        let cache = SchemaCache::new();
        let mut builds = 0;
        let first = get(&cache, &json!({"type": "object", "required": ["a"]}), &mut builds);
        let again = get(&cache, &json!({"type": "object", "required": ["a"]}), &mut builds);
        let reordered = get(&cache, &json!({"required": ["a"], "type": "object"}), &mut builds);
        assert!(Arc::ptr_eq(&first, &again) && Arc::ptr_eq(&first, &reordered));
        let other = get(&cache, &json!({"type": "object", "required": ["b"]}), &mut builds);
        assert!(!Arc::ptr_eq(&first, &other));
        assert_eq!(builds, 2);
    }

    /// A shared schema is found again by its pointer (no hash, no comparison); an equal schema in another `Arc`
    /// goes the structural way to the same entry, and a schema changed with `Arc::make_mut` is a new `Arc`, built
    /// as the new schema it is.
    #[test]
    fn a_shared_schema_is_found_by_its_pointer_and_only_its_own() {
        let cache = SchemaCache::new();
        let mut builds = 0;
        let mut get_shared = |schema: &Arc<Value>| {
            cache
                .get_or_build_shared(schema, 0, |_| {
                    builds += 1;
                    Ok::<_, ()>(Built(Value::clone(schema)))
                })
                .unwrap()
        };
        let shared = Arc::new(json!({"type": "object", "required": ["shared"]}));
        let first = get_shared(&shared);
        let again = get_shared(&shared);
        let equal = get_shared(&Arc::new(Value::clone(&shared)));
        assert!(Arc::ptr_eq(&first, &again) && Arc::ptr_eq(&first, &equal));
        assert_eq!(builds, 1);
        {
            let cache_now = cache.lock();
            assert_eq!(
                cache_now.by_pointer.len(),
                2,
                "each Arc answered is known by its pointer"
            );
            assert!(
                cache_now
                    .by_pointer
                    .iter()
                    .any(|(held, _)| Arc::ptr_eq(held, &shared))
            );
        }
        // The cache holds the Arc, so the caller cannot change the schema behind the pointer it knows.
        let mut shared = shared;
        assert!(Arc::get_mut(&mut shared).is_none());
        Arc::make_mut(&mut shared)["required"] = json!(["changed"]);
        let mut builds_after = 0;
        let changed = cache
            .get_or_build_shared(&shared, 0, |_| {
                builds_after += 1;
                Ok::<_, ()>(Built(Value::clone(&shared)))
            })
            .unwrap();
        assert_eq!(
            builds_after, 1,
            "a changed schema is a new Arc, built as a new schema"
        );
        assert_eq!(changed.0["required"], json!(["changed"]));
    }

    #[test]
    fn the_shared_pointers_kept_stay_bounded_and_leave_the_entries_alone() {
        let cache = SchemaCache::new();
        let mut builds = 0;
        let schema = json!({"type": "object"});
        for _ in 0..=MAX_SHARED {
            cache
                .get_or_build_shared(&Arc::new(schema.clone()), 0, |_| {
                    builds += 1;
                    Ok::<_, ()>(Built(schema.clone()))
                })
                .unwrap();
        }
        assert_eq!(builds, 1, "a new Arc per call still finds the compiled entry");
        assert!(cache.lock().by_pointer.len() <= MAX_SHARED);
    }

    /// The options a schema compiles with are part of its key: the same schema under other options is built again,
    /// under the same options found again (by value and by its shared `Arc`).
    #[test]
    fn a_schema_under_other_options_is_another_entry() {
        let cache = SchemaCache::new();
        let mut builds = 0;
        let schema = Arc::new(json!({"type": "object", "required": ["keyed"]}));
        let mut get = |options_id: usize| {
            cache
                .get_or_build_shared(&schema, options_id, |_| {
                    builds += 1;
                    Ok::<_, ()>(Keyed(Value::clone(&schema), options_id))
                })
                .unwrap()
        };
        let (plain, one, two) = (get(0), get(1), get(2));
        assert_eq!((plain.1, one.1, two.1), (0, 1, 2));
        assert!(Arc::ptr_eq(&get(1), &one) && Arc::ptr_eq(&get(0), &plain));
        assert_eq!(builds, 3);
        let by_value = cache
            .get_or_build(&json!({"required": ["keyed"], "type": "object"}), 2, |_| {
                Err::<Keyed, _>("found, not built")
            })
            .unwrap();
        assert!(Arc::ptr_eq(&by_value, &two));
    }

    #[derive(Debug)]
    struct Keyed(Value, usize);

    impl Entry for Keyed {
        fn schema(&self) -> &Value {
            &self.0
        }

        fn options_id(&self) -> usize {
            self.1
        }
    }

    #[test]
    fn a_failed_build_is_not_cached() {
        let cache: SchemaCache<Built> = SchemaCache::new();
        let mut attempts = 0;
        for _ in 0..2 {
            let result = cache.get_or_build(&json!({"type": 1}), 0, |_| {
                attempts += 1;
                Err("invalid")
            });
            assert_eq!(result.unwrap_err(), "invalid");
        }
        assert_eq!(attempts, 2);
    }

    #[test]
    fn the_cache_stays_bounded() {
        let cache = SchemaCache::new();
        let mut builds = 0;
        for n in 0..=MAX_SCHEMAS {
            get(&cache, &json!({"const": n}), &mut builds);
        }
        assert_eq!(builds, MAX_SCHEMAS + 1);
        let cache_now = cache.lock();
        assert!(cache_now.by_version.len() <= MAX_SCHEMAS);
        assert!(cache_now.by_hash.values().map(Vec::len).sum::<usize>() <= MAX_SCHEMAS);
    }
}
