//! [`CallExtras`]: what a call can carry beside the request it borrows. A wrapper (an observer's recorder, a
//! diagnostics tap) or [`complete_as`](crate::complete_as) attaches its hook or typed decoder here, so nobody
//! copies the caller's request to set one field.

use std::fmt;
use std::sync::Arc;

use crate::call::{AttemptHook, CompletionRequest};
use crate::structured::TypedDecoder;

/// The parts of a call passed beside a borrowed [`CompletionRequest`] to
/// [`Provider::complete_with`](crate::Provider::complete_with). Each one that is `Some` takes the place of the
/// request's own field; `None` leaves the request's.
///
/// ```
/// use std::sync::Arc;
/// use oa_provider::{AttemptHook, CallExtras, CompletionRequest, Message};
///
/// struct Quiet;
/// impl AttemptHook for Quiet {}
///
/// let request = CompletionRequest::new(vec![Message::user("hi")]);
/// let extras = CallExtras::default().with_hook(Arc::new(Quiet));
/// // The request's own hook (none here) gives way to the extras' one.
/// assert!(extras.hook_for(&request).is_some());
/// assert!(CallExtras::NONE.hook_for(&request).is_none());
/// ```
#[derive(Clone, Default)]
pub struct CallExtras {
    /// Receives the call's token deltas and attempt records in place of `request.hook`.
    pub hook: Option<Arc<dyn AttemptHook>>,
    /// The typed content decoder [`complete_as`](crate::complete_as) attaches, in place of the request's own.
    /// Not public: only `complete_as` makes one; a wrapper passes it on by passing (or cloning) the extras.
    pub(crate) typed_decoder: Option<TypedDecoder>,
}

impl CallExtras {
    /// No extras: the request as it is.
    pub const NONE: Self = Self {
        hook: None,
        typed_decoder: None,
    };

    /// With this hook.
    pub fn with_hook(mut self, hook: Arc<dyn AttemptHook>) -> Self {
        self.hook = Some(hook);
        self
    }

    /// With this typed decoder.
    pub(crate) fn with_typed_decoder(mut self, decoder: TypedDecoder) -> Self {
        self.typed_decoder = Some(decoder);
        self
    }

    /// Whether there is nothing to apply.
    pub fn is_empty(&self) -> bool {
        self.hook.is_none() && self.typed_decoder.is_none()
    }

    /// The hook the call reports to: this one, else the request's.
    pub fn hook_for<'a>(&'a self, request: &'a CompletionRequest) -> Option<&'a Arc<dyn AttemptHook>> {
        self.hook.as_ref().or(request.hook.as_ref())
    }

    /// The typed decoder the content check tries: this one, else the request's.
    pub(crate) fn typed_decoder_for<'a>(
        &'a self,
        request: &'a CompletionRequest,
    ) -> Option<&'a TypedDecoder> {
        self.typed_decoder.as_ref().or(request.typed_decoder.as_ref())
    }

    /// A copy of `request` with the extras set on it: what a provider that only knows
    /// [`complete`](crate::Provider::complete) is given.
    pub fn applied_to(&self, request: &CompletionRequest) -> CompletionRequest {
        let mut applied = request.clone();
        self.apply(&mut applied);
        applied
    }

    /// Sets the extras on a request the caller owns (a copy it made anyway).
    pub fn apply(&self, request: &mut CompletionRequest) {
        if let Some(hook) = &self.hook {
            request.hook = Some(Arc::clone(hook));
        }
        if let Some(decoder) = &self.typed_decoder {
            request.typed_decoder = Some(decoder.clone());
        }
    }
}

impl fmt::Debug for CallExtras {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CallExtras")
            .field("hook", &self.hook.as_ref().map(|_| "<hook>"))
            .field("typed_decoder", &self.typed_decoder)
            .finish()
    }
}
