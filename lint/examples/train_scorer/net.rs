//! The one-hidden-layer network the trainer fits when `TRAIN_HIDDEN` is above zero (round 10):
//! the same hashed features as the logistic model, folded into `2^TRAIN_HBITS` buckets, each
//! bucket a row of `H` weights (an embedding bag); a line's hidden layer is
//! `relu(b1 + Σ W1[bucket])` over its features, its logit `b2 + w2 · hidden`.
//!
//! Trained by mini-batch Adam on the weighted logistic loss, with the row weights of the
//! logistic model. Only the rows of `W1` a batch touches are updated (lazy Adam), so an epoch
//! costs what the batch's features cost, not `2^bits × H`. After training, `W1` is quantised
//! to `i8` per hidden unit (symmetric, scale `max |w| / 127`); every score the trainer reports
//! or calibrates on comes from the quantised network, the one `score.rs` embeds. Rows of
//! buckets that no training line holds are zero.

use super::net_format::Shape;

/// The trained network, `W1` quantised.
pub struct Net {
    pub bits: u32,
    pub hidden: usize,
    /// `2^bits × hidden`, row-major by bucket.
    pub q1: Vec<i8>,
    pub scale: Vec<f32>,
    pub b1: Vec<f32>,
    pub w2: Vec<f32>,
    pub b2: f32,
}

/// Hyper-parameters (environment `TRAIN_*`).
pub struct NetParams {
    pub hidden: usize,
    pub bits: u32,
    pub epochs: usize,
    pub lr: f32,
    pub l2: f32,
    pub batch: usize,
}

impl NetParams {
    /// The defaults are the network `score.rs` embeds (round 10: 16 units over 2^18 buckets, six
    /// epochs; leave-one-set-out 0.757 against 0.744 for 8 units, 0.758 for 32 at twice the
    /// size, 0.749 after four epochs). `None` when `TRAIN_HIDDEN=0`: the logistic model.
    pub fn from_env() -> Option<NetParams> {
        let get = |k: &str, d: f64| std::env::var(k).ok().and_then(|v| v.parse().ok()).unwrap_or(d);
        let hidden = get("TRAIN_HIDDEN", 16.0) as usize;
        (hidden > 0).then(|| NetParams {
            hidden,
            bits: get("TRAIN_HBITS", 18.0) as u32,
            epochs: get("TRAIN_NET_EPOCHS", 6.0) as usize,
            lr: get("TRAIN_NET_LR", 1e-3) as f32,
            l2: get("TRAIN_NET_L2", 1e-4) as f32,
            batch: get("TRAIN_BATCH", 256.0) as usize,
        })
    }
}

impl Net {
    fn row(&self, f: u32) -> usize {
        (f as usize & ((1usize << self.bits) - 1)) * self.hidden
    }

    /// The logit of one feature list.
    pub fn logit(&self, fs: &[u32]) -> f32 {
        let mut acc = vec![0i32; self.hidden];
        for &f in fs {
            let r = self.row(f);
            for (a, q) in acc.iter_mut().zip(&self.q1[r..r + self.hidden]) {
                *a += i32::from(*q);
            }
        }
        self.output(&acc)
    }

    /// The logit of the summed quantised rows `acc`.
    pub fn output(&self, acc: &[i32]) -> f32 {
        super::net_format::output(acc, &self.b1, &self.scale, &self.w2, self.b2)
    }

    /// The file `score.rs` embeds, laid out as `lint/src/net_format.rs` says.
    pub fn to_bytes(&self) -> Vec<u8> {
        let shape = Shape { bits: self.bits, units: self.hidden };
        let mut out = shape.header();
        for v in [&self.b1, &self.scale, &self.w2] {
            for x in v.iter() {
                out.extend(x.to_le_bytes());
            }
        }
        out.extend(self.b2.to_le_bytes());
        out.extend(self.q1.iter().map(|q| *q as u8));
        assert_eq!(Some(out.len()), shape.file_len(), "the network file's layout");
        out
    }
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0
    }

    /// Uniform in [-bound, bound).
    fn uniform(&mut self, bound: f32) -> f32 {
        let u = (self.next() >> 40) as f32 / (1u64 << 24) as f32;
        (u * 2.0 - 1.0) * bound
    }
}

/// Adam's moment estimates for one parameter vector.
struct Adam {
    m: Vec<f32>,
    v: Vec<f32>,
}

impl Adam {
    fn new(n: usize) -> Adam {
        Adam { m: vec![0.0; n], v: vec![0.0; n] }
    }

    /// One step on `w[i]` with gradient `g`; `corr` is `lr * sqrt(1 - b2^t) / (1 - b1^t)`.
    fn step(&mut self, w: &mut [f32], i: usize, g: f32, corr: f32) {
        const B1: f32 = 0.9;
        const B2: f32 = 0.999;
        self.m[i] = B1 * self.m[i] + (1.0 - B1) * g;
        self.v[i] = B2 * self.v[i] + (1.0 - B2) * g * g;
        w[i] -= corr * self.m[i] / (self.v[i].sqrt() + 1e-8);
    }
}

/// Trains on `rows`: (features, label, weight) each.
pub fn train(rows: &[(&[u32], bool, f32)], p: &NetParams, seed: u64) -> Net {
    let h = p.hidden;
    let dim = 1usize << p.bits;
    let mask = dim - 1;
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ seed);
    // Glorot-uniform, as scikit-learn initialises its layers.
    let b_in = (6.0 / (dim + h) as f32).sqrt();
    let b_out = (6.0 / (h + 1) as f32).sqrt();
    let mut w1: Vec<f32> = (0..dim * h).map(|_| rng.uniform(b_in)).collect();
    let mut b1: Vec<f32> = (0..h).map(|_| rng.uniform(b_in)).collect();
    let mut w2: Vec<f32> = (0..h).map(|_| rng.uniform(b_out)).collect();
    let mut b2 = [rng.uniform(b_out)];
    let (mut a1, mut ab1, mut a2, mut ab2) =
        (Adam::new(dim * h), Adam::new(h), Adam::new(h), Adam::new(1));
    let mut order: Vec<usize> = (0..rows.len()).collect();
    let mut t = 0i32;
    // Gradients of one batch: W1 rows by bucket (the buckets touched, in first-touch order).
    let mut g1: Vec<f32> = vec![0.0; dim * h];
    let mut touched: Vec<usize> = Vec::new();
    let mut is_touched = vec![false; dim];
    // Buckets no training line holds keep their random start; they are zeroed at the end, so a
    // feature never seen in training adds nothing to a line's hidden layer.
    let mut seen = vec![false; dim];
    for (fs, _, _) in rows {
        for &f in *fs {
            seen[f as usize & mask] = true;
        }
    }
    let mut pre = vec![0.0f32; h];
    for _ in 0..p.epochs {
        for i in (1..order.len()).rev() {
            let j = (rng.next() >> 33) as usize % (i + 1);
            order.swap(i, j);
        }
        for chunk in order.chunks(p.batch) {
            let (mut gb1, mut gw2, mut gb2) = (vec![0.0f32; h], vec![0.0f32; h], 0.0f32);
            let n = chunk.len() as f32;
            for &r in chunk {
                let (fs, label, weight) = rows[r];
                pre.copy_from_slice(&b1);
                for &f in fs {
                    let row = (f as usize & mask) * h;
                    for (a, w) in pre.iter_mut().zip(&w1[row..row + h]) {
                        *a += w;
                    }
                }
                let z = b2[0] + pre.iter().zip(&w2).map(|(a, w)| a.max(0.0) * w).sum::<f32>();
                let prob = 1.0 / (1.0 + (-z).exp());
                let g = (prob - if label { 1.0 } else { 0.0 }) * weight / n;
                gb2 += g;
                for j in 0..h {
                    if pre[j] > 0.0 {
                        gw2[j] += g * pre[j];
                        let d = g * w2[j];
                        gb1[j] += d;
                        pre[j] = d;
                    } else {
                        pre[j] = 0.0;
                    }
                }
                for &f in fs {
                    let b = f as usize & mask;
                    if !is_touched[b] {
                        is_touched[b] = true;
                        touched.push(b);
                    }
                    for (g, d) in g1[b * h..b * h + h].iter_mut().zip(&pre) {
                        *g += d;
                    }
                }
            }
            t += 1;
            let corr = p.lr * (1.0 - 0.999f32.powi(t)).sqrt() / (1.0 - 0.9f32.powi(t));
            for &b in &touched {
                for i in b * h..b * h + h {
                    let g = g1[i] + p.l2 * w1[i];
                    a1.step(&mut w1, i, g, corr);
                    g1[i] = 0.0;
                }
                is_touched[b] = false;
            }
            touched.clear();
            for j in 0..h {
                ab1.step(&mut b1, j, gb1[j], corr);
                let g = gw2[j] + p.l2 * w2[j];
                a2.step(&mut w2, j, g, corr);
            }
            ab2.step(&mut b2, 0, gb2, corr);
        }
    }
    for (b, seen) in seen.iter().enumerate() {
        if !seen {
            w1[b * h..b * h + h].fill(0.0);
        }
    }
    // Quantise W1 per hidden unit.
    let mut scale = vec![0.0f32; h];
    for b in 0..dim {
        for j in 0..h {
            scale[j] = scale[j].max(w1[b * h + j].abs());
        }
    }
    for s in &mut scale {
        *s = if *s > 0.0 { *s / 127.0 } else { 1.0 };
    }
    let q1: Vec<i8> = w1
        .iter()
        .enumerate()
        .map(|(i, w)| (w / scale[i % h]).round().clamp(-127.0, 127.0) as i8)
        .collect();
    Net { bits: p.bits, hidden: h, q1, scale, b1, w2, b2: b2[0] }
}
