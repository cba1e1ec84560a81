//! The type-erased content decoder [`complete_as`](crate::complete_as) passes beside a borrowed request: the
//! content check tries it first, and a decoded `T` waits in its slot until `complete_as` takes it.

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use serde::de::DeserializeOwned;

/// A content decoder into the caller's type, attached to a request by [`complete_as`]. Opaque: cloning shares
/// the slot, so a wrapper that clones the request (an observing provider) passes it through.
#[derive(Clone)]
pub(crate) struct TypedDecoder(Arc<dyn DecodeInto>);

impl fmt::Debug for TypedDecoder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("TypedDecoder").field(&self.0.type_name()).finish()
    }
}

impl TypedDecoder {
    /// A decoder into `T`, and the slot a decoded value waits in.
    pub(crate) fn into_slot<T: DeserializeOwned + Send + 'static>() -> (Self, Arc<Slot<T>>) {
        let slot = Arc::new(Slot(Mutex::new(None)));
        (Self(slot.clone()), slot)
    }

    /// Tries the typed route on `content`: true when the content passed the schema and the type was decoded (and
    /// stored); false means "fall back", and the caller parses and validates.
    pub(crate) fn try_decode(&self, validator: &oa_schema::Validator, content: &str) -> bool {
        self.0.try_decode(validator, content)
    }
}

/// The type-erased side of the slot.
trait DecodeInto: Send + Sync {
    fn try_decode(&self, validator: &oa_schema::Validator, content: &str) -> bool;
    fn type_name(&self) -> &'static str;
}

/// Where a decoded `T` waits for [`complete_as`].
pub(crate) struct Slot<T>(Mutex<Option<T>>);

impl<T> Slot<T> {
    /// The decoded value, taken out (once).
    pub(crate) fn take(&self) -> Option<T> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).take()
    }
}

impl<T: DeserializeOwned + Send> DecodeInto for Slot<T> {
    fn try_decode(&self, validator: &oa_schema::Validator, content: &str) -> bool {
        match validator.deserialize_str::<T>(content) {
            Ok(value) => {
                *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Some(value);
                true
            }
            Err(_) => false,
        }
    }

    fn type_name(&self) -> &'static str {
        std::any::type_name::<T>()
    }
}
