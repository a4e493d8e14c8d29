//! A share of a count as escpush shows it to people: the one formatter of a percentage, used
//! by a scan's summary (`ScanResult.summary`), the command line (`filter scan`, its progress
//! bar) and the notebook display (`escpush._format.percent` reads it from here).

/// `part / whole`, or `None` when `whole` is 0 (nothing to take a share of).
#[allow(clippy::cast_precision_loss)] // a share, not a count
pub fn share(part: u64, whole: u64) -> Option<f64> {
    (whole > 0).then(|| part as f64 / whole as f64)
}

/// `part` of `whole` as a percentage for people, or `None` when `whole` is 0.
///
/// One decimal (`23.1%`), but never one that misleads: below 0.1% and above 99.9% three
/// decimals (`0.012%`, `99.950%`), so that a share that is not nothing never reads `0.0%`
/// and one that is not all never reads `100.0%`; beyond what three decimals show,
/// `< 0.001%` and `> 99.999%`. Nothing is `0.0%`, all is `100.0%`.
pub fn percent(part: u64, whole: u64) -> Option<String> {
    let p = share(part, whole)? * 100.0;
    Some(if part == 0 || part >= whole || (0.1..=99.9).contains(&p) {
        format!("{p:.1}%")
    } else if p < 0.1 {
        let text = format!("{p:.3}");
        if text == "0.000" {
            "< 0.001%".to_owned()
        } else {
            format!("{text}%")
        }
    } else {
        let text = format!("{p:.3}");
        if text == "100.000" {
            "> 99.999%".to_owned()
        } else {
            format!("{text}%")
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_share_that_is_not_nothing_or_all_never_reads_as_such() {
        assert_eq!(percent(0, 0), None);
        assert_eq!(share(1, 4), Some(0.25));
        for (part, whole, text) in [
            (0, 10, "0.0%"),
            (10, 10, "100.0%"),
            (231, 1000, "23.1%"),
            (1, 1000, "0.1%"),
            (999, 1000, "99.9%"),
            (12, 100_000, "0.012%"),
            (5, 10_000, "0.050%"),
            (1, 10_000_000, "< 0.001%"),
            (9995, 10_000, "99.950%"),
            (9_999_999, 10_000_000, "> 99.999%"),
            (3, 2, "150.0%"),
        ] {
            assert_eq!(percent(part, whole).as_deref(), Some(text), "{part} of {whole}");
        }
    }
}
