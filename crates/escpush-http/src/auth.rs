//! Credentials: the two schemes, their checks, and the one place that reads them (and the
//! base URL) from the `CLOUDFLARE_*` environment variables.

use std::fmt;

use crate::error::Error;

/// `CLOUDFLARE_API_TOKEN`: a bearer token.
pub const ENV_API_TOKEN: &str = "CLOUDFLARE_API_TOKEN";
/// `CLOUDFLARE_API_KEY`: a global API key, used with [`ENV_EMAIL`].
pub const ENV_API_KEY: &str = "CLOUDFLARE_API_KEY";
/// `CLOUDFLARE_EMAIL`: the email of the account holder whose API key is used.
pub const ENV_EMAIL: &str = "CLOUDFLARE_EMAIL";
/// `CLOUDFLARE_BASE_URL`: the API root, ending in `/client/v4`.
pub const ENV_BASE_URL: &str = "CLOUDFLARE_BASE_URL";
/// `CLOUDFLARE_ACCOUNT_ID`: the account a command acts on when it is given no zone or account
/// (the name Cloudflare's own tools use; the command line reads it).
pub const ENV_ACCOUNT_ID: &str = "CLOUDFLARE_ACCOUNT_ID";

/// How the client authenticates.
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Auth {
    /// `X-Auth-Key` and `X-Auth-Email` (the scheme the spec shows).
    ApiKey { key: String, email: String },
    /// `Authorization: Bearer <token>`.
    Token(String),
}

impl Auth {
    /// The scheme of the credentials given: a token, or a key with its email. `Ok(None)`
    /// when none is given; an error for a key without email, an email without key, or both
    /// schemes at once.
    pub fn from_parts(
        api_token: Option<String>,
        api_key: Option<String>,
        email: Option<String>,
    ) -> Result<Option<Auth>, Error> {
        match (api_token, api_key, email) {
            (None, None, None) => Ok(None),
            (Some(token), None, None) => Ok(Some(Auth::Token(token))),
            (None, Some(key), Some(email)) => Ok(Some(Auth::ApiKey { key, email })),
            (Some(_), _, _) => Err(invalid("give api_token, or api_key with email, not both")),
            (None, Some(_), None) => Err(invalid("api_key needs the account's email too")),
            (None, None, Some(_)) => Err(invalid("email needs api_key too")),
        }
    }

    pub(crate) fn check(&self) -> Result<(), Error> {
        let check = |what: &'static str, value: &str| -> Result<(), Error> {
            if value.is_empty() {
                return Err(invalid_arg(what, "must not be empty"));
            }
            if value.chars().any(|c| c.is_control() || !c.is_ascii()) {
                return Err(invalid_arg(what, "must be printable ASCII (a header value)"));
            }
            Ok(())
        };
        match self {
            Auth::ApiKey { key, email } => {
                check("API key", key)?;
                check("email", email)
            }
            Auth::Token(token) => check("API token", token),
        }
    }

    /// `"api_key"` or `"api_token"`: which scheme, never the credential.
    pub fn scheme(&self) -> &'static str {
        match self {
            Auth::ApiKey { .. } => "api_key",
            Auth::Token(_) => "api_token",
        }
    }

    /// The headers that carry the credentials.
    pub(crate) fn headers(&self) -> Vec<(&'static str, String)> {
        match self {
            Auth::ApiKey { key, email } => vec![("X-Auth-Key", key.clone()), ("X-Auth-Email", email.clone())],
            Auth::Token(token) => vec![("Authorization", format!("Bearer {token}"))],
        }
    }
}

impl fmt::Debug for Auth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Auth::ApiKey { email, .. } => f
                .debug_struct("ApiKey")
                .field("key", &escpush_filter::MASK)
                .field("email", email)
                .finish(),
            Auth::Token(_) => f.debug_tuple("Token").field(&escpush_filter::MASK).finish(),
        }
    }
}

/// Credentials and base URL given in code for [`crate::ClientBuilder::from_env_with`]; each
/// one given wins over its `CLOUDFLARE_*` variable.
#[derive(Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
#[must_use]
pub struct EnvOverrides {
    api_token: Option<String>,
    api_key: Option<String>,
    email: Option<String>,
    base_url: Option<String>,
}

impl fmt::Debug for EnvOverrides {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown = |v: &Option<String>| v.as_ref().map(|_| escpush_filter::MASK);
        f.debug_struct("EnvOverrides")
            .field("api_token", &shown(&self.api_token))
            .field("api_key", &shown(&self.api_key))
            .field("email", &self.email)
            .field("base_url", &self.base_url)
            .finish()
    }
}

impl EnvOverrides {
    /// Nothing given: everything from the environment.
    pub fn new() -> Self {
        EnvOverrides::default()
    }

    /// Use this token (wins over `CLOUDFLARE_API_TOKEN` and an API key from the environment).
    pub fn api_token(mut self, token: Option<String>) -> Self {
        self.api_token = token;
        self
    }

    /// Use this API key (wins over `CLOUDFLARE_API_KEY` and a token from the environment).
    pub fn api_key(mut self, key: Option<String>) -> Self {
        self.api_key = key;
        self
    }

    /// Use this email (wins over `CLOUDFLARE_EMAIL`).
    pub fn email(mut self, email: Option<String>) -> Self {
        self.email = email;
        self
    }

    /// Use this base URL (wins over `CLOUDFLARE_BASE_URL`).
    pub fn base_url(mut self, url: Option<String>) -> Self {
        self.base_url = url;
        self
    }

    /// The credentials and base URL: a scheme given in code first, then a token, then a key
    /// with its email from `var` (a lookup of the environment; empty values count as unset).
    pub(crate) fn resolve(&self, var: impl Fn(&str) -> Option<String>) -> Result<(Auth, Option<String>), Error> {
        let var = |name: &str| var(name).filter(|v| !v.is_empty());
        let email = || self.email.clone().or_else(|| var(ENV_EMAIL));
        let base_url = self.base_url.clone().or_else(|| var(ENV_BASE_URL));
        let given = Auth::from_parts(
            self.api_token.clone(),
            self.api_key.clone(),
            self.api_key.as_ref().and_then(|_| email()),
        );
        let auth = match given {
            Ok(Some(auth)) => auth,
            Err(_) if self.api_key.is_some() && self.api_token.is_none() => {
                return Err(invalid(format!(
                    "an API key needs its email: set {ENV_EMAIL} or give the email"
                )))
            }
            Err(e) => return Err(e),
            Ok(None) => match (var(ENV_API_TOKEN), var(ENV_API_KEY), email()) {
                (Some(token), _, _) => Auth::Token(token),
                (None, Some(key), Some(email)) => Auth::ApiKey { key, email },
                (None, Some(_), None) => {
                    return Err(invalid(format!(
                        "an API key needs its email: {ENV_API_KEY} is set but {ENV_EMAIL} is not"
                    )))
                }
                (None, None, _) => {
                    return Err(invalid(format!(
                        "none given: set {ENV_API_TOKEN}, or {ENV_API_KEY} and {ENV_EMAIL} (or give an API \
                         token, or an API key with its email)"
                    )))
                }
            },
        };
        Ok((auth, base_url))
    }
}

fn invalid(message: impl Into<String>) -> Error {
    invalid_arg("credentials", message)
}

pub(crate) fn invalid_arg(what: &'static str, message: impl Into<String>) -> Error {
    Error::Core(escpush_core::Error::InvalidInput {
        what,
        message: message.into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| pairs.iter().find(|(k, _)| *k == name).map(|(_, v)| (*v).to_owned())
    }

    #[test]
    fn given_credentials_win_over_the_environment() {
        let vars = [
            (ENV_API_TOKEN, "env-token"),
            (ENV_EMAIL, "env@x.io"),
            (ENV_BASE_URL, "https://e/client/v4"),
        ];
        let (auth, url) = EnvOverrides::new().resolve(env(&vars)).unwrap();
        assert_eq!(
            (auth, url.as_deref()),
            (Auth::Token("env-token".into()), Some("https://e/client/v4"))
        );
        let given = EnvOverrides::new()
            .api_key(Some("k".into()))
            .base_url(Some("https://g/client/v4".into()));
        let (auth, url) = given.resolve(env(&vars)).unwrap();
        assert_eq!(
            auth,
            Auth::ApiKey {
                key: "k".into(),
                email: "env@x.io".into()
            }
        );
        assert_eq!(url.as_deref(), Some("https://g/client/v4"));
        let given = EnvOverrides::new().api_token(Some("t".into()));
        assert_eq!(given.resolve(env(&[])).unwrap().0, Auth::Token("t".into()));
        let key_only = [(ENV_API_KEY, "k"), (ENV_API_TOKEN, "")];
        let err = EnvOverrides::new().resolve(env(&key_only)).unwrap_err().to_string();
        assert!(err.contains(ENV_EMAIL) && !err.contains("k is"), "{err}");
        let err = EnvOverrides::new().resolve(env(&[])).unwrap_err().to_string();
        assert!(err.contains(ENV_API_TOKEN), "{err}");
        let both = EnvOverrides::new()
            .api_token(Some("t".into()))
            .api_key(Some("k".into()));
        assert!(both.resolve(env(&[])).unwrap_err().to_string().contains("not both"));
        let err = EnvOverrides::new()
            .api_key(Some("k".into()))
            .resolve(env(&[]))
            .unwrap_err();
        assert!(err.to_string().contains("give the email"), "{err}");
        assert!(!format!("{both:?}").contains("\"t\""));
    }
}
