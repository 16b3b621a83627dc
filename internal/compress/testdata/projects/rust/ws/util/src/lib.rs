pub fn mean(xs: &[f64]) -> f64 {
    let n = xs.len();
    let total: f64 = xs.iter().sum();
    total / xs.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_of_three() {
        assert_eq!(mean(&[1.0, 2.0, 3.0]), 2.0);
    }

    #[test]
    fn mean_of_nothing_is_zero() {
        assert_eq!(mean(&[]), 0.0);
    }

    #[test]
    fn mean_of_negatives() {
        assert!(mean(&[-1.0, -3.0]) < -1.5, "mean was {}", mean(&[-1.0, -3.0]));
    }
}
