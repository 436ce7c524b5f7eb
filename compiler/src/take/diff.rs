//! Unified diffs of two texts, line by line, for showing a kept original beside what a
//! module declares. Longest common subsequence over lines; texts too large for that are
//! shown as one hunk replacing the whole.

/// The most line pairs the LCS table may hold; past it the diff is one whole hunk.
const MAX_CELLS: usize = 4_000_000;
/// Lines of context around each change.
const CONTEXT: usize = 3;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Same(usize, usize),
    Old(usize),
    New(usize),
}

/// A unified diff from `old` to `new` (`--- old_name`, `+++ new_name`, `@@` hunks), or an
/// empty string when they are equal.
pub fn unified(old: &str, new: &str, old_name: &str, new_name: &str) -> String {
    if old == new {
        return String::new();
    }
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let ops = if a.len().saturating_mul(b.len()) <= MAX_CELLS {
        lcs_ops(&a, &b)
    } else {
        (0..a.len())
            .map(Op::Old)
            .chain((0..b.len()).map(Op::New))
            .collect()
    };
    let mut out = format!("--- {old_name}\n+++ {new_name}\n");
    let changed: Vec<usize> = ops
        .iter()
        .enumerate()
        .filter(|(_, op)| !matches!(op, Op::Same(..)))
        .map(|(i, _)| i)
        .collect();
    if changed.is_empty() {
        // Only line endings differ (a final newline): say so rather than print nothing.
        out.push_str("@@ the texts differ only in their final newline @@\n");
        return out;
    }
    let mut i = 0;
    while i < changed.len() {
        let start = changed[i].saturating_sub(CONTEXT);
        let mut end = changed[i];
        while i < changed.len() && changed[i] <= end + 2 * CONTEXT + 1 {
            end = changed[i];
            i += 1;
        }
        let end = (end + CONTEXT + 1).min(ops.len());
        let hunk = &ops[start..end];
        let (mut old_start, mut new_start) = (None, None);
        let (mut old_len, mut new_len) = (0, 0);
        for op in hunk {
            match *op {
                Op::Same(x, y) => {
                    old_start.get_or_insert(x);
                    new_start.get_or_insert(y);
                    old_len += 1;
                    new_len += 1;
                }
                Op::Old(x) => {
                    old_start.get_or_insert(x);
                    old_len += 1;
                }
                Op::New(y) => {
                    new_start.get_or_insert(y);
                    new_len += 1;
                }
            }
        }
        let first = |s: Option<usize>, len: usize| {
            if len == 0 {
                s.unwrap_or(0)
            } else {
                s.unwrap_or(0) + 1
            }
        };
        out.push_str(&format!(
            "@@ -{},{old_len} +{},{new_len} @@\n",
            first(old_start, old_len),
            first(new_start, new_len)
        ));
        for op in hunk {
            match *op {
                Op::Same(x, _) => out.push_str(&format!(" {}\n", a[x])),
                Op::Old(x) => out.push_str(&format!("-{}\n", a[x])),
                Op::New(y) => out.push_str(&format!("+{}\n", b[y])),
            }
        }
    }
    out
}

fn lcs_ops(a: &[&str], b: &[&str]) -> Vec<Op> {
    let (n, m) = (a.len(), b.len());
    // table[i][j]: the LCS length of a[i..] and b[j..].
    let mut table = vec![0u32; (n + 1) * (m + 1)];
    let at = |i: usize, j: usize| i * (m + 1) + j;
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            table[at(i, j)] = if a[i] == b[j] {
                table[at(i + 1, j + 1)] + 1
            } else {
                table[at(i + 1, j)].max(table[at(i, j + 1)])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut ops = Vec::with_capacity(n + m);
    while i < n && j < m {
        if a[i] == b[j] {
            ops.push(Op::Same(i, j));
            i += 1;
            j += 1;
        } else if table[at(i + 1, j)] >= table[at(i, j + 1)] {
            ops.push(Op::Old(i));
            i += 1;
        } else {
            ops.push(Op::New(j));
            j += 1;
        }
    }
    ops.extend((i..n).map(Op::Old));
    ops.extend((j..m).map(Op::New));
    ops
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shows_the_changed_line_with_context() {
        let d = unified(
            "[server]\nHTTP_PORT = 3001\n",
            "[server]\nHTTP_PORT = 3000\n",
            "found",
            "declared",
        );
        assert_eq!(
            d,
            "--- found\n+++ declared\n@@ -1,2 +1,2 @@\n [server]\n-HTTP_PORT = 3001\n+HTTP_PORT = 3000\n"
        );
        assert_eq!(unified("a\n", "a\n", "x", "y"), "");
    }

    #[test]
    fn far_apart_changes_make_two_hunks() {
        let old: String = (0..30).map(|i| format!("line {i}\n")).collect();
        let new = old
            .replace("line 2\n", "line two\n")
            .replace("line 27\n", "line twenty-seven\n");
        let d = unified(&old, &new, "a", "b");
        assert_eq!(d.matches("@@ -").count(), 2, "{d}");
    }
}
