//! Checking a response's content against the call's schema: the one place oa-provider parses model output and runs
//! the validator on it. A failure keeps what was found as typed values — the parse error or every violation, and
//! the failure class derived from them — so nothing downstream parses or validates again.

use serde_json::Value;

use crate::model::{FailureClass, OutputProblem, ProviderError, StructuredOutputFailure, Surface};
use crate::structured::fit::MapBack;
use crate::structured::{CallSchema, differs_only_in_case};

impl CallSchema {
    /// The content check of a call that may carry a typed decoder ([`complete_as`](crate::complete_as)): the
    /// decoder first, which reads the content into the caller's type while validating it (`Ok(None)`: decoded, no
    /// value built); when it cannot decide, or when the answer may need mapping back (a fitted schema changed how
    /// it is spelled), [`check_content`](Self::check_content) as on every call.
    pub(crate) fn check_content_typed(
        &self,
        content: &str,
        surface: Surface<'_>,
        decoder: Option<&crate::structured::TypedDecoder>,
        map_back: Option<&MapBack>,
    ) -> Result<Option<Value>, ProviderError> {
        if map_back.is_none() && decoder.is_some_and(|decoder| decoder.try_decode(self.validator(), content))
        {
            return Ok(None);
        }
        self.check_content(content, surface, map_back).map(Some)
    }

    /// Parses `content`, maps it back to the caller's spelling when the schema sent was fitted (`map_back`), and
    /// validates it against the caller's schema: the value, or the `structured_output_invalid` error carrying the
    /// typed problem and its class. Counted by [`validations`] in tests.
    pub(crate) fn check_content(
        &self,
        content: &str,
        surface: Surface<'_>,
        map_back: Option<&MapBack>,
    ) -> Result<Value, ProviderError> {
        #[cfg(test)]
        counter::count();
        let (problem, case_only) = match oa_schema::parse_json(content) {
            Err(malformed) => (OutputProblem::Malformed(malformed), false),
            Ok(mut value) => match self.validator().validate(&value) {
                Ok(()) => return Ok(value),
                Err(violations) => {
                    let violations = match map_back {
                        Some(map_back) if !map_back.apply(&mut value, self.validator()).is_empty() => {
                            match self.validator().validate(&value) {
                                Ok(()) => return Ok(value),
                                Err(violations) => violations,
                            }
                        }
                        _ => violations,
                    };
                    let case_only = differs_only_in_case(&value, self.caller(), &violations);
                    (OutputProblem::Violations(violations), case_only)
                }
            },
        };
        let failure_class = FailureClass::of(content, &problem, surface.finish_reason);
        Err(ProviderError::structured_output_invalid(
            StructuredOutputFailure::new(
                self.caller().clone(),
                content.to_owned(),
                problem,
                failure_class,
                surface,
            )
            .with_case_only(case_only),
        ))
    }
}

#[cfg(test)]
crate::structured::thread_counter!(
    counter,
    validations,
    "How many content checks this thread has run (tests pin \"a failed attempt validates once\")."
);
