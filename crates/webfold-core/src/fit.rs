//! The one search every budgeted view uses: the largest view that fits.
//!
//! A view is rendered at some size `k` (lines shown, a cut's level, …) and
//! counted exactly; counting is what costs, so the number of attempts must
//! stay logarithmic and every attempt near the budget's size. Views whose
//! output does not grow strictly with `k` still get a rendering that fits:
//! the search only ever keeps attempts that fitted.

/// The largest `k` below `end` whose `attempt(k)` fits (returns `Some`),
/// for attempts that fit up to some `k` and not above it; `known` is a `k`
/// already seen to fit, with its value, and is what comes back when nothing
/// above it fits.
///
/// `guess` is where to look first: from there the search gallops toward the
/// boundary in doubling steps, then bisects what is left, so a good guess
/// costs a handful of attempts.
pub fn largest_fitting<T>(
    known: (usize, T),
    guess: usize,
    end: usize,
    mut attempt: impl FnMut(usize) -> Option<T>,
) -> (usize, T) {
    let floor = known.0 + 1;
    let mut best = known;
    if floor >= end {
        return best;
    }
    // `hi` never fits (or is past the end).
    let mut hi = end;
    let guess = guess.clamp(floor, end - 1);
    match attempt(guess) {
        Some(v) => {
            best = (guess, v);
            gallop_up(&mut best, &mut hi, &mut attempt);
        }
        None => {
            hi = guess;
            gallop_down(&mut best, &mut hi, floor, &mut attempt);
        }
    }
    while hi - best.0 > 1 {
        let mid = best.0 + (hi - best.0) / 2;
        match attempt(mid) {
            Some(v) => best = (mid, v),
            None => hi = mid,
        }
    }
    best
}

/// From a fitting `best`, steps of 1, 2, 4, … up until one does not fit.
fn gallop_up<T>(
    best: &mut (usize, T),
    hi: &mut usize,
    attempt: &mut impl FnMut(usize) -> Option<T>,
) {
    let mut step = 1;
    loop {
        let k = best.0 + step;
        if k >= *hi {
            return;
        }
        match attempt(k) {
            Some(v) => {
                *best = (k, v);
                step *= 2;
            }
            None => {
                *hi = k;
                return;
            }
        }
    }
}

/// Below a `hi` that did not fit, steps of 1, 2, 4, … down (never under
/// `floor`) until one fits or `floor` did not.
fn gallop_down<T>(
    best: &mut (usize, T),
    hi: &mut usize,
    floor: usize,
    attempt: &mut impl FnMut(usize) -> Option<T>,
) {
    let mut step = 1;
    while *hi > floor {
        let k = hi.saturating_sub(step).max(floor);
        match attempt(k) {
            Some(v) => {
                *best = (k, v);
                return;
            }
            None => {
                *hi = k;
                step *= 2;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    /// Every boundary, guess and known start finds the boundary, in few attempts.
    #[test]
    fn finds_the_boundary_from_any_guess() {
        for end in 1..70 {
            for limit in 1..=end {
                // k fits while k < limit; 0 always fits.
                for known in 0..limit {
                    for guess in 0..end {
                        let calls = Cell::new(0);
                        let got = largest_fitting((known, known * 10), guess, end, |k| {
                            calls.set(calls.get() + 1);
                            (k < limit).then_some(k * 10)
                        });
                        let want = (limit - 1, (limit - 1) * 10);
                        assert_eq!(
                            got, want,
                            "end {end} limit {limit} known {known} guess {guess}"
                        );
                        assert!(calls.get() <= 2 * 7 + 1, "{} attempts", calls.get());
                    }
                }
            }
        }
    }

    #[test]
    fn keeps_only_what_fitted_when_sizes_do_not_grow_monotonically() {
        // 5 fits, 4 does not: whatever the search lands on was a fit.
        let fits = |k: usize| [true, true, true, true, false, true, false, false][k];
        for guess in 0..8 {
            let (k, ()) = largest_fitting((0, ()), guess, 8, |k| fits(k).then_some(()));
            assert!(fits(k), "guess {guess} gave {k}");
        }
    }

    #[test]
    fn nothing_above_the_known_fit_keeps_it() {
        assert_eq!(largest_fitting((2, 'x'), 5, 10, |_| None), (2, 'x'));
        assert_eq!(largest_fitting((9, 'x'), 3, 10, |_| Some('y')), (9, 'x'));
    }
}
