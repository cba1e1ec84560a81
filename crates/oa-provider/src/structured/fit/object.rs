//! Objects in each provider's dialect: properties fitted one by one; OpenAI's strict mode gets every property
//! required (an optional one nullable, mapped back) and every object closed; Anthropic gets closed objects, optional
//! properties as written, and whatever the limits pass decided about `null`; Gemini gets the caller's object.

use serde_json::{Map, Value, json};

use super::account::{Reason, RewriteKind};
use super::doc;
use super::error::FitError;
use super::fitter::{Candidate, Fitter};
use super::frame::{Frame, MergedAdditional};
use super::map_back::Edit;
use super::nulls;
use super::values::is_nullable_form;
use crate::model::Mapping;

impl Fitter<'_> {
    /// Writes the frame's object keywords; false when no object can satisfy them in the provider's dialect.
    pub(crate) fn fit_object(
        &mut self,
        frame: &Frame,
        out: &mut Map<String, Value>,
        plan: usize,
    ) -> Result<bool, FitError> {
        let object = frame.merged_object();
        if let Some((name, at)) = &object.impossible {
            self.rewrite(at, RewriteKind::Unreachable(name.clone()));
            return Ok(false);
        }
        self.plan.object(plan);
        let holder = doc::child(&frame.host, "properties");
        let mut properties = Map::new();
        let mut required = Vec::new();
        for (name, schemas) in &object.properties {
            let in_caller = object.required.iter().any(|(held, _)| held == name);
            let Some(mut node) = self.fit_conjunction(&doc::child(&holder, name), schemas)? else {
                self.rewrite(&frame.host, RewriteKind::Unreachable(name.clone()));
                if in_caller {
                    return Ok(false);
                }
                continue;
            };
            let rejects_null = nulls::conjunction_rejects_null(&self.doc, schemas);
            let key = (frame.host.clone(), name.clone());
            let mut edit = None;
            let mut is_required = in_caller;
            match self.mapping {
                Mapping::OpenAi => {
                    if !in_caller {
                        // Nullable, so the model can say "absent"; where the caller's schema may take `null` itself,
                        // the schema is sent as it is. Either way a `null` the caller's schema rejects there is
                        // mapped back to "absent".
                        if rejects_null {
                            node = self.make_nullable(node)?;
                        }
                        edit = Some(Edit::RemoveNull);
                        self.rewrite(&frame.host, RewriteKind::MadeRequired(name.clone()));
                        is_required = true;
                    }
                }
                Mapping::Anthropic => {
                    let nullable = is_nullable_form(&node.value);
                    let candidate = match (in_caller, nullable, rejects_null) {
                        (false, true, _) => Some(Candidate::NullDroppable),
                        (true, true, false) => Some(Candidate::Omittable),
                        (false, false, true) => Some(Candidate::Requirable),
                        _ => None,
                    };
                    if let Some(candidate) = candidate {
                        *self
                            .candidates
                            .entry((key.0.clone(), key.1.clone(), candidate.clone()))
                            .or_default() += 1;
                        let chosen = match candidate {
                            Candidate::NullDroppable => self.policy.null_dropped.contains(&key),
                            Candidate::Omittable => self.policy.omittable.contains(&key),
                            Candidate::Requirable => self.policy.nullable_required.contains(&key),
                        };
                        if chosen {
                            match candidate {
                                Candidate::NullDroppable => {
                                    node = self.strip_null(node, &frame.host);
                                    self.rewrite(&frame.host, RewriteKind::NullDropped(name.clone()));
                                }
                                Candidate::Omittable => {
                                    node = self.strip_null(node, &frame.host);
                                    edit = Some(Edit::InsertNull);
                                    is_required = false;
                                    self.rewrite(&frame.host, RewriteKind::MadeOmittable(name.clone()));
                                }
                                Candidate::Requirable => {
                                    node = self.make_nullable(node)?;
                                    edit = Some(Edit::RemoveNull);
                                    is_required = true;
                                    self.rewrite(&frame.host, RewriteKind::MadeRequired(name.clone()));
                                }
                            }
                        }
                    }
                }
                Mapping::Gemini => {}
            }
            properties.insert(name.clone(), node.value);
            if is_required {
                required.push(json!(name));
            }
            self.plan.property(plan, name, edit, Some(node.plan));
        }
        match self.mapping {
            Mapping::OpenAi | Mapping::Anthropic => {
                if !matches!(object.additional, MergedAdditional::Forbidden(_)) {
                    self.rewrite(&frame.host, RewriteKind::ClosedObject);
                }
                let min_properties = frame
                    .simple
                    .iter()
                    .find(|(keyword, _, _)| keyword == "minProperties")
                    .and_then(|(_, value, _)| value.as_f64());
                if min_properties.is_some_and(|min| min > properties.len() as f64) {
                    self.rewrite(&frame.host, RewriteKind::Unreachable("minProperties".to_owned()));
                    return Ok(false);
                }
                out.insert("properties".to_owned(), Value::Object(properties));
                out.insert("required".to_owned(), Value::Array(required));
                out.insert("additionalProperties".to_owned(), Value::Bool(false));
            }
            Mapping::Gemini => {
                if !properties.is_empty() || frame.objects.iter().any(|part| !part.properties.is_empty()) {
                    out.insert("properties".to_owned(), Value::Object(properties));
                }
                if !required.is_empty() {
                    out.insert("required".to_owned(), Value::Array(required));
                }
                self.fit_additional_gemini(frame, &object.additional, out)?;
            }
        }
        Ok(true)
    }

    /// Gemini takes `additionalProperties` (false or a schema) without documenting whether it enforces it.
    fn fit_additional_gemini(
        &mut self,
        frame: &Frame,
        additional: &MergedAdditional,
        out: &mut Map<String, Value>,
    ) -> Result<(), FitError> {
        let reason = self
            .table_reason("additionalProperties")
            .unwrap_or(Reason::KeptUncertain);
        match additional {
            MergedAdditional::Any => {}
            MergedAdditional::Forbidden(at) => {
                out.insert("additionalProperties".to_owned(), Value::Bool(false));
                self.unenforced(at, "additionalProperties", reason);
            }
            MergedAdditional::Schemas(schemas) => {
                let host = doc::child(&frame.host, "additionalProperties");
                let value = match self.fit_conjunction(&host, schemas)? {
                    Some(node) => node.value,
                    None => Value::Bool(false),
                };
                out.insert("additionalProperties".to_owned(), value);
                for schema in schemas {
                    if let Some(holder) = schema.parent() {
                        self.unenforced(&holder, "additionalProperties", reason);
                    }
                }
            }
        }
        Ok(())
    }
}
