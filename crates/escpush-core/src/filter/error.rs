//! The error of a filter that cannot be built or does not validate: every problem found.

use std::fmt;

use crate::problem::{describe, Problem};

/// A filter that cannot be built or does not pass validation, with every problem found.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct FilterError {
    problems: Vec<Problem>,
}

impl FilterError {
    /// An error with these problems (at least one).
    pub fn new(problems: Vec<Problem>) -> Self {
        debug_assert!(!problems.is_empty(), "a FilterError needs a problem");
        FilterError { problems }
    }

    /// Every problem, in the order of the filter's text.
    pub fn problems(&self) -> &[Problem] {
        &self.problems
    }

    /// The problems, by value.
    pub fn into_problems(self) -> Vec<Problem> {
        self.problems
    }
}

impl fmt::Display for FilterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&describe("invalid filter", &self.problems))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problem::ProblemCode;

    #[test]
    fn display_names_path_message_and_code() {
        let one = FilterError::new(vec![Problem::new(
            "where.value",
            ProblemCode::EmptySet,
            "`in` needs at least one value",
        )]);
        assert_eq!(
            one.to_string(),
            "invalid filter: where.value: `in` needs at least one value [empty_set]"
        );
        let two = FilterError::new(vec![
            Problem::new("", ProblemCode::MissingWhere, "no `where`"),
            Problem::new("x", ProblemCode::UnknownMember, "unknown"),
        ]);
        assert_eq!(
            two.to_string(),
            "invalid filter: 2 problems\n  - no `where` [missing_where]\n  - x: unknown [unknown_member]"
        );
    }
}
