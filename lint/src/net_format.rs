//! The byte layout of `scorer_net.bin`, the network the trainer writes and the scorer embeds:
//! `EVOKBNET1`, the bucket bits and the number of hidden units (u32 LE each), then `b1`,
//! `scale` and `w2` (one f32 LE per unit each), `b2` (f32 LE), then `W1`, one signed byte per
//! unit, bucket by bucket. One description read by `build.rs` (which checks the file),
//! `score.rs` (which reads it) and `examples/train_scorer/net.rs` (which writes it); and the
//! network's output from a line's summed rows, [`output`], which the scorer and the trainer
//! both compute here, so that the thresholds the trainer calibrates hold for the logits the
//! scorer makes.

/// The first bytes of the file.
pub(crate) const MAGIC: &[u8; 9] = b"EVOKBNET1";

/// Where the float vectors start: after the magic, the bits and the units.
const FLOATS_AT: usize = MAGIC.len() + 8;

/// The vectors of one float per hidden unit, in file order.
#[derive(Clone, Copy)]
pub(crate) enum Vector {
    B1 = 0,
    Scale = 1,
    W2 = 2,
}

/// A network's shape: `units` hidden units over `2^bits` feature buckets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Shape {
    pub(crate) bits: u32,
    pub(crate) units: usize,
}

impl Shape {
    /// The shape a file's header names, if it starts like a network file.
    pub(crate) fn of(bytes: &[u8]) -> Option<Shape> {
        let word = |at: usize| {
            bytes.get(at..at + 4).and_then(|b| <[u8; 4]>::try_from(b).ok()).map(u32::from_le_bytes)
        };
        if !bytes.starts_with(MAGIC) {
            return None;
        }
        Some(Shape { bits: word(MAGIC.len())?, units: word(MAGIC.len() + 4)? as usize })
    }

    /// The header of a file of this shape (written by the trainer, not the scorer).
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) fn header(&self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.extend(self.bits.to_le_bytes());
        out.extend((self.units as u32).to_le_bytes());
        out
    }

    /// The byte offset of unit `j`'s value in vector `v`.
    pub(crate) fn float_at(&self, v: Vector, j: usize) -> usize {
        FLOATS_AT + (v as usize * self.units + j) * 4
    }

    /// The byte offset of `b2`.
    pub(crate) fn b2_at(&self) -> usize {
        FLOATS_AT + 3 * self.units * 4
    }

    /// The byte offset of `W1`.
    pub(crate) fn w1_at(&self) -> usize {
        self.b2_at() + 4
    }

    /// The length of a file of this shape (`None` for a shape too large to address).
    pub(crate) fn file_len(&self) -> Option<usize> {
        1usize.checked_shl(self.bits)?.checked_mul(self.units)?.checked_add(self.w1_at())
    }
}

/// A network's logit from the sums `acc` of the quantised rows of a line's features:
/// `b2 + Σ w2[j] · relu(b1[j] + scale[j] · acc[j])`.
pub(crate) fn output(acc: &[i32], b1: &[f32], scale: &[f32], w2: &[f32], b2: f32) -> f32 {
    let mut z = b2;
    for (((sum, b1), scale), w2) in acc.iter().zip(b1).zip(scale).zip(w2) {
        let a = b1 + scale * *sum as f32;
        if a > 0.0 {
            z += w2 * a;
        }
    }
    z
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_reads_back_as_its_shape_and_the_offsets_follow_one_another() {
        let shape = Shape { bits: 18, units: 16 };
        assert_eq!(Shape::of(&shape.header()), Some(shape));
        assert_eq!(Shape::of(b"EVOKBNET0 and more bytes"), None);
        assert_eq!(shape.float_at(Vector::B1, 0), shape.header().len());
        assert_eq!(shape.float_at(Vector::W2, 15) + 4, shape.b2_at());
        assert_eq!(shape.file_len(), Some(17 + (3 * 16 + 1) * 4 + (1 << 18) * 16));
        assert_eq!(Shape { bits: 70, units: 16 }.file_len(), None);
    }
}
