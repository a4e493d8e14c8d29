//! The v4 envelope every answer comes in:
//! `{"success": bool, "errors": [{"code", "message"}], "messages": [...], "result": ...}`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{ApiMessage, Error};
use escpush_filter::json_kind;

/// The v4 envelope.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Envelope {
    pub success: bool,
    #[serde(default)]
    pub errors: Vec<ApiMessage>,
    #[serde(default)]
    pub messages: Vec<ApiMessage>,
    #[serde(default)]
    pub result: Value,
}

impl Envelope {
    /// A successful envelope around `result`.
    pub fn ok(result: Value) -> Self {
        Envelope {
            success: true,
            errors: Vec::new(),
            messages: Vec::new(),
            result,
        }
    }

    /// A failed envelope with the given errors and a null result.
    pub fn error(errors: Vec<ApiMessage>) -> Self {
        Envelope {
            success: false,
            errors,
            messages: Vec::new(),
            result: Value::Null,
        }
    }

    /// The envelope as compact JSON bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }
}

/// How an answer carried its `result`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum AnswerForm {
    /// No body at all (a 204, or an empty 200).
    Empty,
    /// A JSON body that is not an envelope, taken as the result itself.
    Bare,
    /// A v4 envelope with a `result` member.
    Envelope,
    /// A v4 envelope without a `result` member.
    EnvelopeWithoutResult,
}

/// A successful answer, read: its `result` (null when there was none) and how it came.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Answer {
    pub result: Value,
    pub form: AnswerForm,
}

/// Reads an answer: its HTTP `status` and `body`. Gives the envelope's `result` and how it
/// came ([`AnswerForm`]), or [`Error::Api`] for a non-2xx status or `success: false` (with
/// the envelope's errors when the body has them), or [`Error::MalformedResponse`] for a 2xx
/// body that is not JSON, or an object with `success` that is not a v4 envelope (`errors`
/// that is not a list, `success` that is not a boolean, ...).
pub fn read_answer(status: u16, body: &[u8]) -> Result<Answer, Error> {
    let ok_status = (200..300).contains(&status);
    let malformed = |message: String| Error::MalformedResponse {
        status: Some(status),
        message,
    };
    if body.iter().all(u8::is_ascii_whitespace) {
        return if ok_status {
            Ok(Answer {
                result: Value::Null,
                form: AnswerForm::Empty,
            })
        } else {
            Err(Error::Api {
                status,
                errors: Vec::new(),
            })
        };
    }
    let value: Value = match serde_json::from_slice(body) {
        Ok(value) => value,
        Err(_) if !ok_status => {
            return Err(Error::Api {
                status,
                errors: Vec::new(),
            })
        }
        Err(_) => return Err(malformed(format!("the body ({} bytes) is not JSON", body.len()))),
    };
    let Some(obj) = value.as_object().filter(|o| o.contains_key("success")) else {
        return if ok_status {
            Ok(Answer {
                result: value,
                form: AnswerForm::Bare,
            })
        } else {
            Err(Error::Api {
                status,
                errors: Vec::new(),
            })
        };
    };
    let has_result = obj.contains_key("result");
    let envelope = match Envelope::deserialize(&value) {
        Ok(envelope) => envelope,
        Err(_) if !ok_status => {
            return Err(Error::Api {
                status,
                errors: Vec::new(),
            })
        }
        Err(e) => return Err(malformed(format!("the v4 envelope is malformed: {e}"))),
    };
    if !ok_status || !envelope.success {
        return Err(Error::Api {
            status,
            errors: envelope.errors,
        });
    }
    Ok(Answer {
        result: envelope.result,
        form: if has_result {
            AnswerForm::Envelope
        } else {
            AnswerForm::EnvelopeWithoutResult
        },
    })
}

/// [`read_answer`]'s `result` alone, for answers whose shape the caller checks itself (an
/// empty body and an envelope without `result` give null).
pub fn parse_response(status: u16, body: &[u8]) -> Result<Value, Error> {
    read_answer(status, body).map(|answer| answer.result)
}

/// Reads a list answer's `result`: `null` is an empty list, an array has each item read by
/// `item` (with its index), anything else is [`Error::MalformedResponse`] naming `what`.
pub(crate) fn read_list<T>(
    result: Value,
    what: &str,
    item: impl Fn(usize, Value) -> Result<T, Error>,
) -> Result<Vec<T>, Error> {
    match result {
        Value::Null => Ok(Vec::new()),
        Value::Array(items) => items.into_iter().enumerate().map(|(i, v)| item(i, v)).collect(),
        other => Err(Error::malformed(format!(
            "{what} is {}, not an array",
            json_kind(&other)
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn success_gives_the_result() {
        let body = br#"{"success":true,"errors":[],"messages":[],"result":{"always":true}}"#;
        assert_eq!(parse_response(200, body).unwrap(), json!({"always": true}));
        assert_eq!(parse_response(200, b"").unwrap(), Value::Null);
        assert_eq!(
            parse_response(200, br#"{"always":true}"#).unwrap(),
            json!({"always": true})
        );
        assert_eq!(
            Envelope::ok(json!(1)).to_bytes(),
            br#"{"success":true,"errors":[],"messages":[],"result":1}"#
        );
    }

    #[test]
    fn failures_are_typed() {
        let body =
            br#"{"success":false,"errors":[{"code":9103,"message":"Unknown X-Auth-Key"}],"messages":[],"result":null}"#;
        let err = parse_response(403, body).unwrap_err();
        assert_eq!(
            err,
            Error::Api {
                status: 403,
                errors: vec![ApiMessage::new(9103, "Unknown X-Auth-Key")]
            }
        );
        assert_eq!(err.to_string(), "the API answered HTTP 403: [9103] Unknown X-Auth-Key");
        // success false with a 200 is still an error
        let body = br#"{"success":false,"errors":[{"code":1,"message":"no"}]}"#;
        assert!(matches!(parse_response(200, body), Err(Error::Api { status: 200, .. })));
        // an HTML 502 page
        assert_eq!(
            parse_response(502, b"<html>bad gateway</html>").unwrap_err(),
            Error::Api {
                status: 502,
                errors: vec![]
            }
        );
        for broken in [
            &br#"{"success":true,"errors":{},"result":{}}"#[..],
            br#"{"success":"yes","result":{}}"#,
        ] {
            assert!(
                matches!(
                    read_answer(200, broken),
                    Err(Error::MalformedResponse { status: Some(200), .. })
                ),
                "{}",
                String::from_utf8_lossy(broken)
            );
        }
        // a broken envelope with an error status is still the API's error
        assert!(matches!(
            read_answer(503, br#"{"success":false,"errors":{}}"#),
            Err(Error::Api { status: 503, .. })
        ));
        assert_eq!(read_answer(204, b"").unwrap().form, AnswerForm::Empty);
        assert_eq!(read_answer(200, b"null").unwrap().form, AnswerForm::Bare);
        assert_eq!(
            read_answer(200, br#"{"success":true,"errors":[]}"#).unwrap().form,
            AnswerForm::EnvelopeWithoutResult
        );
        assert!(matches!(
            parse_response(200, b"{\"succ"),
            Err(Error::MalformedResponse { status: Some(200), .. })
        ));
    }
}
