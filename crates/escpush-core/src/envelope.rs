//! The v4 envelope every answer comes in:
//! `{"success": bool, "errors": [{"code", "message"}], "messages": [...], "result": ...}`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{ApiMessage, Error};

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

/// Reads an answer: its HTTP `status` and `body`. Gives the envelope's `result` (a bare,
/// non-enveloped JSON body is taken as the result itself; an empty body as null), or
/// [`Error::Api`] for a non-2xx status or `success: false` (with the envelope's errors when
/// the body has them), or [`Error::MalformedResponse`] for a 2xx body that is not JSON.
pub fn parse_response(status: u16, body: &[u8]) -> Result<Value, Error> {
    let ok_status = (200..300).contains(&status);
    let text_is_empty = body.iter().all(u8::is_ascii_whitespace);
    let value: Option<Value> = if text_is_empty {
        None
    } else {
        serde_json::from_slice(body).ok()
    };
    let envelope = value.as_ref().and_then(|v| {
        v.as_object()
            .filter(|o| o.contains_key("success"))
            .and_then(|_| Envelope::deserialize(v).ok())
    });
    match (ok_status, envelope, value) {
        (true, Some(env), _) if env.success => Ok(env.result),
        (_, Some(env), _) => Err(Error::Api {
            status,
            errors: env.errors,
        }),
        (true, None, Some(v)) => Ok(v),
        (true, None, None) if text_is_empty => Ok(Value::Null),
        (true, None, None) => Err(Error::MalformedResponse {
            status: Some(status),
            message: format!("the body ({} bytes) is not JSON", body.len()),
        }),
        (false, None, _) => Err(Error::Api {
            status,
            errors: Vec::new(),
        }),
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
        assert!(matches!(
            parse_response(200, b"{\"succ"),
            Err(Error::MalformedResponse { status: Some(200), .. })
        ));
    }
}
