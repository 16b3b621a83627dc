//! A calculator with a deliberate bug in `add` for the failing-test corpus.

pub fn add(a: i64, b: i64) -> i64 {
    a - b
}

pub fn mul(a: i64, b: i64) -> i64 {
    a * b
}

pub fn checked_div(a: i64, b: i64) -> i64 {
    if b == 0 {
        panic!("division by zero: {a} / {b}");
    }
    a / b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds() {
        assert_eq!(add(1, 2), 3);
    }

    #[test]
    fn divides_by_zero() {
        checked_div(1, 0);
    }

    macro_rules! mul_tests {
        ($($name:ident: $n:expr,)*) => {$(
            #[test]
            fn $name() {
                assert_eq!(mul($n, 2), $n + $n);
            }
        )*};
    }

    mul_tests! {
        mul_00: 0, mul_01: 1, mul_02: 2, mul_03: 3, mul_04: 4, mul_05: 5, mul_06: 6, mul_07: 7, mul_08: 8, mul_09: 9,
        mul_10: 10, mul_11: 11, mul_12: 12, mul_13: 13, mul_14: 14, mul_15: 15, mul_16: 16, mul_17: 17, mul_18: 18, mul_19: 19,
        mul_20: 20, mul_21: 21, mul_22: 22, mul_23: 23, mul_24: 24, mul_25: 25, mul_26: 26, mul_27: 27, mul_28: 28, mul_29: 29,
        mul_30: 30, mul_31: 31, mul_32: 32, mul_33: 33, mul_34: 34, mul_35: 35, mul_36: 36, mul_37: 37, mul_38: 38, mul_39: 39,
        mul_40: 40, mul_41: 41, mul_42: 42, mul_43: 43, mul_44: 44, mul_45: 45, mul_46: 46, mul_47: 47, mul_48: 48, mul_49: 49,
        mul_50: 50, mul_51: 51, mul_52: 52, mul_53: 53, mul_54: 54, mul_55: 55, mul_56: 56, mul_57: 57, mul_58: 58, mul_59: 59,
        mul_60: 60, mul_61: 61, mul_62: 62, mul_63: 63, mul_64: 64, mul_65: 65, mul_66: 66, mul_67: 67, mul_68: 68, mul_69: 69,
        mul_70: 70, mul_71: 71, mul_72: 72, mul_73: 73, mul_74: 74, mul_75: 75, mul_76: 76, mul_77: 77, mul_78: 78, mul_79: 79,
        mul_80: 80, mul_81: 81, mul_82: 82, mul_83: 83, mul_84: 84, mul_85: 85, mul_86: 86, mul_87: 87, mul_88: 88, mul_89: 89,
        mul_90: 90, mul_91: 91, mul_92: 92, mul_93: 93, mul_94: 94, mul_95: 95, mul_96: 96, mul_97: 97, mul_98: 98, mul_99: 99,
    }
}
