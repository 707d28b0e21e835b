//! Blind comparison: the takes in an order nobody chose, named A, B, C, D, with their model and
//! settings hidden until every one of them has a rating.

/// A shuffled order of `n` takes (a permutation of `0..n`), from `seed` (the time it began):
/// nothing in the order tells which take was sent first.
pub fn order(n: usize, seed: u64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    // xorshift64*: enough to hide an order from a person; not cryptography.
    let mut state = seed | 1;
    let mut next = || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_F491_4F6C_DD1D)
    };
    for i in (1..n).rev() {
        let j = (next() % (i as u64 + 1)) as usize;
        order.swap(i, j);
    }
    order
}

/// The name of the take at `position` in a blind comparison: A, B, … Z, then A2, B2, ….
pub fn label(position: usize) -> String {
    let letter = char::from(b'A' + (position % 26) as u8);
    match position / 26 {
        0 => letter.to_string(),
        round => format!("{letter}{}", round + 1),
    }
}

/// Whether a blind comparison shows what it hid: once every take has a rating.
pub fn revealed(ratings: &[Option<u8>]) -> bool {
    ratings.iter().all(Option::is_some)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_order_holds_every_take_once() {
        for (n, seed) in [(0, 1), (1, 7), (2, 3), (4, 1_732_000_000_000), (9, 42)] {
            let mut o = order(n, seed);
            o.sort_unstable();
            assert_eq!(o, (0..n).collect::<Vec<_>>(), "{n} takes, seed {seed}");
        }
        assert_eq!(order(4, 99), order(4, 99), "the same seed, the same order");
        let seeds = 1_732_000_000_000u64..1_732_000_000_050;
        let moved = seeds.filter(|s| order(4, *s) != [0, 1, 2, 3]).count();
        assert!(moved > 40, "most seeds move the takes: {moved} of 50");
        let firsts: std::collections::BTreeSet<usize> = (0..200u64).map(|s| order(4, s)[0]).collect();
        assert_eq!(firsts.len(), 4, "every take can come first");
    }

    #[test]
    fn takes_are_named_by_letter() {
        let cases = [(0, "A"), (1, "B"), (3, "D"), (25, "Z"), (26, "A2"), (27, "B2")];
        for (position, want) in cases {
            assert_eq!(label(position), want);
        }
    }

    #[test]
    fn the_reveal_waits_for_every_rating() {
        let cases: [(&[Option<u8>], bool); 5] = [
            (&[None, None], false),
            (&[Some(4), None], false),
            (&[None, Some(2)], false),
            (&[Some(4), Some(2)], true),
            (&[Some(1), Some(5), Some(3), Some(3)], true),
        ];
        for (ratings, want) in cases {
            assert_eq!(revealed(ratings), want, "{ratings:?}");
        }
    }
}
