//! Posting lists: the sorted row ordinals that carry one facet value, and the set operations a
//! facet filter needs.
//!
//! A list is stored as its ordinals in ascending order, each written as the LEB128 varint of
//! its distance from the one before (the first from zero). Ordinals are dense and a common
//! value's rows sit close together, so most gaps fit one byte: the 12.7k rows of a family at
//! 100k entries take about 20 KB, where one key per row with a 32-byte hash took 600 KB.
//! A filter decodes its narrowest list and walks the others in their encoded form against it
//! ([`intersect_encoded`]); an edit rewrites only the lists of the values it changes.

/// Why stored posting bytes cannot be read back as a list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PostingError {
    /// The bytes end inside a varint.
    Truncated,
    /// A varint is longer than a u32 can be, or the running sum passes `u32::MAX`.
    Overflow,
    /// A gap of zero after the first ordinal: the list repeats an ordinal.
    Repeated,
}

impl std::fmt::Display for PostingError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            PostingError::Truncated => "the posting list ends inside a number",
            PostingError::Overflow => "the posting list holds a number larger than an ordinal",
            PostingError::Repeated => "the posting list repeats an ordinal",
        })
    }
}

/// Encodes a strictly ascending list of ordinals.
pub(crate) fn encode(ords: &[u32]) -> Vec<u8> {
    let mut out = Vec::with_capacity(ords.len() + 4);
    let mut prev = 0u32;
    for (i, &o) in ords.iter().enumerate() {
        debug_assert!(i == 0 || o > prev, "posting lists are strictly ascending");
        let mut gap = o - if i == 0 { 0 } else { prev };
        prev = o;
        while gap >= 0x80 {
            out.push((gap as u8 & 0x7f) | 0x80);
            gap >>= 7;
        }
        out.push(gap as u8);
    }
    out
}

/// Decodes a list written by [`encode`].
pub(crate) fn decode(bytes: &[u8]) -> Result<Vec<u32>, PostingError> {
    let mut out = Vec::with_capacity(bytes.len());
    walk(bytes, |o| out.push(o))?;
    Ok(out)
}

/// Hands each ordinal of a list written by [`encode`] to `each`, in order, and checks the
/// whole list: the one decoder, so a list is judged damaged alike whether it is decoded into
/// a vector or only walked ([`intersect_encoded`]).
fn walk(bytes: &[u8], mut each: impl FnMut(u32)) -> Result<(), PostingError> {
    let mut prev: u32 = 0;
    let mut first = true;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        // Most gaps are one byte (a value's rows sit close together): added without the
        // varint loop. A one-byte gap is below 0x80, so only the running sum can overflow.
        if b < 0x80 {
            i += 1;
            if b == 0 && !first {
                return Err(PostingError::Repeated);
            }
            first = false;
            prev = prev.checked_add(u32::from(b)).ok_or(PostingError::Overflow)?;
            each(prev);
            continue;
        }
        let mut gap: u32 = 0;
        let mut shift = 0u32;
        loop {
            let Some(&b) = bytes.get(i) else { return Err(PostingError::Truncated) };
            i += 1;
            if shift == 28 && b > 0x0f {
                return Err(PostingError::Overflow);
            }
            gap |= u32::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                break;
            }
            shift += 7;
        }
        if !first && gap == 0 {
            return Err(PostingError::Repeated);
        }
        first = false;
        prev = prev.checked_add(gap).ok_or(PostingError::Overflow)?;
        each(prev);
    }
    Ok(())
}

/// The ordinals of the sorted list `acc` that are also in the encoded list `bytes`, which is
/// walked once and never decoded into memory: a broad value (a status most entries share,
/// 100k ordinals at 100k entries) decoded into a vector first was 400 KB of fresh memory for
/// a query that keeps a few hundred of them. The whole list is still walked, so a damaged one
/// is refused as [`decode`] refuses it.
pub(crate) fn intersect_encoded(acc: &[u32], bytes: &[u8]) -> Result<Vec<u32>, PostingError> {
    let mut out = Vec::with_capacity(acc.len());
    let mut j = 0;
    walk(bytes, |o| {
        while acc.get(j).is_some_and(|&a| a < o) {
            j += 1;
        }
        if acc.get(j) == Some(&o) {
            out.push(o);
            j += 1;
        }
    })?;
    Ok(out)
}

/// The sorted union of sorted lists.
pub(crate) fn union(lists: Vec<Vec<u32>>) -> Vec<u32> {
    let mut lists = lists.into_iter();
    let Some(mut acc) = lists.next() else { return Vec::new() };
    for l in lists {
        let mut out = Vec::with_capacity(acc.len() + l.len());
        let (mut a, mut b) = (acc.iter().peekable(), l.iter().peekable());
        loop {
            match (a.peek(), b.peek()) {
                (Some(&&x), Some(&&y)) => {
                    out.push(x.min(y));
                    if x <= y {
                        a.next();
                    }
                    if y <= x {
                        b.next();
                    }
                }
                (Some(_), None) => {
                    out.extend(a);
                    break;
                }
                (None, Some(_)) => {
                    out.extend(b);
                    break;
                }
                (None, None) => break,
            }
        }
        acc = out;
    }
    acc
}

/// The ordinals of the sorted list `a` that are also in the sorted list `b`.
pub(crate) fn intersect(a: &[u32], b: &[u32]) -> Vec<u32> {
    let (small, large) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let mut out = Vec::with_capacity(small.len());
    if large.len() / 16 <= small.len() {
        // Lists of like size (two broad facets): one merge walk over both, which costs less
        // than a search per member when the searches would each skip only a few ordinals.
        let (mut i, mut j) = (0, 0);
        while i < small.len() && j < large.len() {
            let (x, y) = (small[i], large[j]);
            if x == y {
                out.push(x);
            }
            i += usize::from(x <= y);
            j += usize::from(y <= x);
        }
        return out;
    }
    // A galloping walk: a narrow facet against a broad one costs a short search per member
    // of the narrow one, not a pass over the broad one. Each search first doubles its step
    // from where the last one ended, so it looks only as far ahead as the next match.
    let mut rest = large;
    for &x in small {
        let mut step = 1;
        while step < rest.len() && rest[step - 1] < x {
            step *= 2;
        }
        let window = &rest[..step.min(rest.len())];
        match window.binary_search(&x) {
            Ok(i) => {
                out.push(x);
                rest = &rest[i + 1..];
            }
            Err(i) => rest = &rest[i..],
        }
        if rest.is_empty() {
            break;
        }
    }
    out
}

/// Applies removals and additions to a sorted list (both sides need not be sorted): every
/// copy of a removed ordinal goes, and the list ends sorted without duplicates once anything
/// is added.
///
/// A one-record write changes one or two ordinals of lists that can hold nearly every row
/// (`status: verified` at 100k entries): removals are found by a merge walk against the sorted
/// removals, and a few additions into a strictly increasing list by binary search, instead of
/// hashing every ordinal of the list and sorting it again, which was half of a `set`.
pub(crate) fn apply(list: &mut Vec<u32>, remove: &[u32], add: &[u32]) {
    if !remove.is_empty() {
        let mut gone = remove.to_vec();
        gone.sort_unstable();
        let mut next = 0;
        list.retain(|o| {
            while next < gone.len() && gone[next] < *o {
                next += 1;
            }
            !(next < gone.len() && gone[next] == *o)
        });
    }
    if add.is_empty() {
        return;
    }
    let strictly_increasing = list.windows(2).all(|w| w[0] < w[1]);
    if add.len() <= 16 && strictly_increasing {
        for &o in add {
            if let Err(at) = list.binary_search(&o) {
                list.insert(at, o);
            }
        }
    } else {
        list.extend_from_slice(add);
        list.sort_unstable();
        list.dedup();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    proptest! {
        #[test]
        fn lists_round_trip(set in proptest::collection::btree_set(any::<u32>(), 0..200)) {
            let v: Vec<u32> = set.into_iter().collect();
            prop_assert_eq!(decode(&encode(&v)).expect("decodes"), v);
        }

        #[test]
        fn set_operations_match_btreesets(
            a in proptest::collection::btree_set(0u32..500, 0..100),
            b in proptest::collection::btree_set(0u32..500, 0..100),
            c in proptest::collection::btree_set(0u32..500, 0..100),
        ) {
            let va: Vec<u32> = a.iter().copied().collect();
            let vb: Vec<u32> = b.iter().copied().collect();
            let vc: Vec<u32> = c.iter().copied().collect();
            let want_union: Vec<u32> = a.union(&b).chain(c.iter()).copied()
                .collect::<BTreeSet<_>>().into_iter().collect();
            prop_assert_eq!(union(vec![va.clone(), vb.clone(), vc.clone()]), want_union);
            let want_inter: Vec<u32> = a.intersection(&b).copied().collect();
            prop_assert_eq!(intersect(&va, &vb), want_inter.clone());
            prop_assert_eq!(intersect(&vb, &va), want_inter.clone());
            prop_assert_eq!(intersect_encoded(&va, &encode(&vb)), Ok(want_inter.clone()));
            prop_assert_eq!(intersect_encoded(&vb, &encode(&va)), Ok(want_inter));
            let mut applied = va.clone();
            apply(&mut applied, &vb, &vc);
            let want: Vec<u32> = a.difference(&b).chain(c.iter()).copied()
                .collect::<BTreeSet<_>>().into_iter().collect();
            prop_assert_eq!(applied, want);
        }

        #[test]
        fn apply_gives_what_hashing_and_sorting_again_gave(
            list in proptest::collection::vec(0u32..300, 0..200),
            dedup in any::<bool>(),
            remove in proptest::collection::vec(0u32..300, 0..20),
            add in proptest::collection::vec(0u32..300, 0..20),
        ) {
            // Sorted, as every stored list is; with duplicates too, which no list should hold.
            let mut list = list;
            list.sort_unstable();
            if dedup {
                list.dedup();
            }
            let mut want = list.clone();
            let gone: std::collections::HashSet<u32> = remove.iter().copied().collect();
            want.retain(|o| !gone.contains(o));
            if !add.is_empty() {
                want.extend_from_slice(&add);
                want.sort_unstable();
                want.dedup();
            }
            apply(&mut list, &remove, &add);
            prop_assert_eq!(list, want);
        }
    }

    #[test]
    fn damaged_lists_are_refused() {
        assert_eq!(decode(&[0x80]), Err(PostingError::Truncated));
        assert_eq!(decode(&[0xff, 0xff, 0xff, 0xff, 0x7f]), Err(PostingError::Overflow));
        assert_eq!(decode(&[5, 0]), Err(PostingError::Repeated));
        assert_eq!(decode(&[0xff, 0xff, 0xff, 0xff, 0x0f, 1]), Err(PostingError::Overflow));
        assert_eq!(decode(&[]), Ok(vec![]));
        assert_eq!(decode(&[0]), Ok(vec![0]), "ordinal zero is a first gap of zero");
        // Walked without being decoded, a list is refused alike, even past the last ordinal
        // the intersection could keep.
        assert_eq!(intersect_encoded(&[1], &[1, 4, 0x80]), Err(PostingError::Truncated));
        assert_eq!(intersect_encoded(&[5], &[5, 0]), Err(PostingError::Repeated));
        assert_eq!(
            intersect_encoded(&[], &[0xff, 0xff, 0xff, 0xff, 0x7f]),
            Err(PostingError::Overflow)
        );
        assert_eq!(intersect_encoded(&[0, 3], &[0, 3]), Ok(vec![0, 3]));
    }
}
