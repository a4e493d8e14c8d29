//! Which inputs a scan reads: arguments as a command line gives them, expanded by
//! [`Selection`] (folders, globs, object storage prefixes, a time range). Not to be confused
//! with [`Scanner::select`](crate::Scanner::select), which writes the lines that match.

use std::path::{Component, Path, PathBuf};

use escpush_filter::format_time;
use globset::{GlobBuilder, GlobMatcher};
use walkdir::WalkDir;

use crate::names::{has_glob, is_log_name, logpush_range, url_scheme};
use crate::{Input, ScanError};

/// Turns arguments as a command line gives them (files, folders, globs, `-` for stdin, and
/// with the `store` feature object storage URLs) into inputs, in a deterministic order, and
/// picks log-push files by the time range in their names.
///
/// - A folder is read recursively; it contributes the files whose names end in `.gz`,
///   `.log`, `.ndjson`, `.jsonl` or `.json` (any case), hidden files and folders (a name
///   starting with `.`) left out, so that a log-push destination's `ownership-challenge`
///   text file or an editor's swap file is not read as logs. An object storage prefix is read
///   the same way, except that with a time range its date folders (`YYYYMMDD/`) that cannot
///   hold a batch of the range are not even listed.
/// - A glob (`logs/2026112*/*.log.gz`, `logs/**/*.gz`; `*`, `?`, `[...]`, `{a,b}` and `**`)
///   is expanded here, so it works the same in every shell and from Python; it must match at
///   least one file. `*` does not cross a `/`; `**` does. A path that exists is never read
///   as a glob.
/// - Every folder's and glob's files are sorted by path, component by component (the order of
///   a sorted recursive listing), so that line numbers, `limit` and the selected lines come in
///   the same order on every run and platform. Arguments keep the order they are given in.
/// - [`Selection::since`] and [`Selection::until`] keep the files whose log-push time range
///   (`20261122T000000Z_20261122T000030Z_<hash>.log.gz`: the batch's first and last second,
///   UTC) overlaps `[since, until)`, without opening the others. Lines inside a kept file are
///   not filtered by their own timestamps. When a range is asked, a file whose name carries no
///   range is an error naming it ([`ScanError::Select`]): counting it or leaving it out
///   silently would both give a wrong answer. So is `-` (stdin has no name at all).
#[derive(Clone, Debug, Default)]
pub struct Selection {
    since: Option<i64>,
    until: Option<i64>,
}

impl Selection {
    /// Every file, whatever its name.
    pub fn new() -> Selection {
        Selection::default()
    }

    /// Keep only log-push files whose time range ends after `unix_seconds` (UTC).
    #[must_use]
    pub fn since(mut self, unix_seconds: Option<i64>) -> Self {
        self.since = unix_seconds;
        self
    }

    /// Keep only log-push files whose time range starts before `unix_seconds` (UTC).
    #[must_use]
    pub fn until(mut self, unix_seconds: Option<i64>) -> Self {
        self.until = unix_seconds;
        self
    }

    /// Whether a time range is asked.
    pub fn has_range(&self) -> bool {
        self.since.is_some() || self.until.is_some()
    }

    /// The inputs `args` stand for, in order: `-` is stdin, a URL with a scheme an object
    /// storage location, an existing folder its log files, a path that does not exist but
    /// holds glob characters the files it matches, anything else a file.
    pub fn expand<I, S>(&self, args: I) -> Result<Vec<Input>, ScanError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        self.check_range()?;
        let mut inputs = Vec::new();
        for arg in args {
            let arg = arg.as_ref();
            if arg == "-" {
                self.keep_stdin()?;
                inputs.push(Input::Stdin);
            } else if let Some(scheme) = url_scheme(arg) {
                self.expand_url(scheme, arg, &mut inputs)?;
            } else {
                self.expand_path(Path::new(arg), &mut inputs)?;
            }
        }
        Ok(inputs)
    }

    /// The inputs one path stands for (a file, a folder, or a glob), appended to `out`.
    pub fn expand_path(&self, path: &Path, out: &mut Vec<Input>) -> Result<(), ScanError> {
        self.check_range()?;
        let text = path.to_string_lossy();
        if path.is_dir() {
            let files = walk(path, None, &text)?;
            for file in files {
                if is_log_name(&file) && self.keep(&file)? {
                    out.push(Input::Path(file));
                }
            }
        } else if !path.exists() && has_glob(&text) {
            let files = glob(&text)?;
            if files.is_empty() {
                return Err(ScanError::Select {
                    what: text.into_owned(),
                    message: "the pattern matches no files".into(),
                });
            }
            for file in files {
                if self.keep(&file)? {
                    out.push(Input::Path(file));
                }
            }
        } else if self.keep(path)? {
            out.push(Input::Path(path.to_path_buf()));
        }
        Ok(())
    }

    #[cfg_attr(not(feature = "store"), allow(clippy::unused_self))]
    fn expand_url(&self, scheme: &str, url: &str, out: &mut Vec<Input>) -> Result<(), ScanError> {
        #[cfg(feature = "store")]
        {
            let _ = scheme;
            for object in crate::store::list(url, self.since, self.until)? {
                if self.keep_name(object.name(), &object.url())? {
                    out.push(Input::Object(object));
                }
            }
            Ok(())
        }
        #[cfg(not(feature = "store"))]
        {
            let _ = out;
            Err(ScanError::Select {
                what: url.to_owned(),
                message: format!(
                    "`{scheme}://` is object storage, which this build of escpush-scan cannot read (it needs the \
                     `store` feature)"
                ),
            })
        }
    }

    /// An empty range is a mistake, not a request for nothing.
    fn check_range(&self) -> Result<(), ScanError> {
        if let (Some(since), Some(until)) = (self.since, self.until) {
            if since >= until {
                return Err(ScanError::Select {
                    what: "--since/--until".into(),
                    message: format!(
                        "the time range is empty: since {} is not before until {}",
                        format_time(since),
                        format_time(until)
                    ),
                });
            }
        }
        Ok(())
    }

    /// Stdin is read whole, and only without a time range: it has no name to read a range from.
    fn keep_stdin(&self) -> Result<(), ScanError> {
        if self.has_range() {
            return Err(ScanError::Select {
                what: "-".into(),
                message: "--since/--until pick files by the time range in their log-push names, and standard \
                          input has no such name: give the files, or leave the range out"
                    .into(),
            });
        }
        Ok(())
    }

    fn keep(&self, path: &Path) -> Result<bool, ScanError> {
        let name = path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
        self.keep_name(&name, &path.display().to_string())
    }

    /// Whether a file named `name` (shown as `shown` in errors) is in the time range.
    pub(crate) fn keep_name(&self, name: &str, shown: &str) -> Result<bool, ScanError> {
        if !self.has_range() {
            return Ok(true);
        }
        let Some((start, end)) = logpush_range(name) else {
            return Err(ScanError::Select {
                what: shown.to_owned(),
                message: "--since/--until pick files by the time range in their log-push names \
                          (20261122T000000Z_20261122T000030Z_<hash>.log.gz), and this name has none"
                    .into(),
            });
        };
        Ok(self.since.is_none_or(|since| end > since) && self.until.is_none_or(|until| start < until))
    }
}

fn walk_error(shown: &str, error: &walkdir::Error) -> ScanError {
    let path = error
        .path()
        .map_or_else(|| shown.to_owned(), |p| p.display().to_string());
    ScanError::Open {
        source_name: path,
        error: std::io::Error::other(error.to_string()),
    }
}

/// The files under `root` (to `max_depth` levels when given), hidden entries left out,
/// sorted by path component by component. Symbolic links are followed (a loop is an error).
fn walk(root: &Path, max_depth: Option<usize>, shown: &str) -> Result<Vec<PathBuf>, ScanError> {
    let mut walker = WalkDir::new(root).follow_links(true).sort_by_file_name();
    if let Some(depth) = max_depth {
        walker = walker.max_depth(depth);
    }
    let mut files = Vec::new();
    let entries = walker
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !e.file_name().to_string_lossy().starts_with('.'));
    for entry in entries {
        let entry = entry.map_err(|e| walk_error(shown, &e))?;
        if entry.file_type().is_file() {
            files.push(entry.into_path());
        }
    }
    Ok(files)
}

/// The files a glob matches, sorted. The walk starts at the longest leading part without glob
/// characters and goes only as deep as the pattern can reach.
fn glob(pattern: &str) -> Result<Vec<PathBuf>, ScanError> {
    let normal = pattern.replace('\\', "/");
    let normal = if cfg!(windows) { normal } else { pattern.to_owned() };
    let parts: Vec<&str> = normal.split('/').collect();
    let literal = parts.iter().take_while(|p| !has_glob(p)).count();
    let base: PathBuf = if literal == 0 {
        PathBuf::from(".")
    } else {
        let joined = parts[..literal].join("/");
        PathBuf::from(if joined.is_empty() { "/".to_owned() } else { joined })
    };
    let rest = &parts[literal..];
    let depth = (!rest.contains(&"**")).then_some(rest.len());
    let matcher: GlobMatcher = GlobBuilder::new(&rest.join("/"))
        .literal_separator(true)
        .backslash_escape(!cfg!(windows))
        .build()
        .map_err(|e| ScanError::Select {
            what: pattern.to_owned(),
            message: format!("not a valid glob: {}", e.kind()),
        })?
        .compile_matcher();
    if !base.is_dir() {
        return Ok(Vec::new());
    }
    let mut files = Vec::new();
    for file in walk(&base, depth, pattern)? {
        let Ok(relative) = file.strip_prefix(&base) else {
            continue;
        };
        let relative: Vec<String> = relative
            .components()
            .filter_map(|c| match c {
                Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
                _ => None,
            })
            .collect();
        if matcher.is_match(relative.join("/")) {
            files.push(if literal == 0 && !pattern.starts_with("./") {
                // `*.gz` names files as the shell would: `a.gz`, not `./a.gz`.
                file.strip_prefix(".").map(Path::to_path_buf).unwrap_or(file)
            } else {
                file
            });
        }
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn range_overlap() {
        let sel = Selection::new().since(Some(1_795_305_630)).until(Some(1_795_305_660));
        let keep = |name: &str| sel.keep_name(name, name).unwrap();
        assert!(!keep("20261122T000000Z_20261122T000030Z_a.log.gz"), "ends at since");
        assert!(keep("20261122T000030Z_20261122T000100Z_a.log.gz"));
        assert!(keep("20261122T000000Z_20261122T000100Z_a.log.gz"), "overlaps since");
        assert!(!keep("20261122T000100Z_20261122T000130Z_a.log.gz"), "starts at until");
        assert!(sel.keep_name("x.log.gz", "x.log.gz").is_err());
        assert!(Selection::new().keep_name("x.log.gz", "x").unwrap());
    }

    #[test]
    fn stdin_has_no_name_to_place_in_time() {
        // A time range is read from a file's name; stdin has none: refused, not read whole.
        for sel in [
            Selection::new().since(Some(4_070_908_800)),
            Selection::new().until(Some(1)),
        ] {
            let err = sel.expand(["-"]).unwrap_err().to_string();
            assert!(err.starts_with("`-`: --since/--until pick files"), "{err}");
            assert!(err.contains("standard input has no such name"), "{err}");
        }
        assert!(matches!(Selection::new().expand(["-"]).unwrap()[..], [Input::Stdin]));
    }
}
