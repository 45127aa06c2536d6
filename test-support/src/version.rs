//! The server version a test server pretends to be, and the wire version it implies.

use std::fmt;

/// A MongoDB server release (`major.minor`), as reported by `buildInfo` and implied by `hello`'s
/// `maxWireVersion`.
///
/// Behaviours that changed between releases (the time-series default index from 6.3, the
/// `errorAndLog` validation action from 8.1, `drop` of a missing collection succeeding from 7.0)
/// follow this version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ServerVersion {
    /// Major release number, e.g. 7 for 7.0.
    pub major: u32,
    /// Minor release number, e.g. 3 for 6.3.
    pub minor: u32,
}

impl ServerVersion {
    /// MongoDB 4.4, the oldest release the Rust driver 3.x talks to (wire version 9).
    pub const V4_4: Self = Self::new(4, 4);
    /// MongoDB 5.0.
    pub const V5_0: Self = Self::new(5, 0);
    /// MongoDB 6.0.
    pub const V6_0: Self = Self::new(6, 0);
    /// MongoDB 6.3: first release that creates the time-series `{meta: 1, time: 1}` index.
    pub const V6_3: Self = Self::new(6, 3);
    /// MongoDB 7.0, the default.
    pub const V7_0: Self = Self::new(7, 0);
    /// MongoDB 8.0.
    pub const V8_0: Self = Self::new(8, 0);
    /// MongoDB 8.1: first release that accepts `validationAction: "errorAndLog"`.
    pub const V8_1: Self = Self::new(8, 1);

    /// A version from its major and minor numbers.
    #[must_use]
    pub const fn new(major: u32, minor: u32) -> Self {
        Self { major, minor }
    }

    /// The `maxWireVersion` this release reports in `hello`.
    ///
    /// Source: the driver specifications' wire version table
    /// (`source/wireversion-featurelist.md` in mongodb/specifications): 4.4 = 9, 5.0 = 13,
    /// 5.1..5.3 = 14..16, 6.0 = 17, 6.1..6.3 = 18..20, 7.0 = 21, 7.1..7.3 = 22..24, 8.0 = 25, 8.1 = 26,
    /// 8.2 = 27.
    #[must_use]
    pub fn max_wire_version(self) -> i32 {
        match (self.major, self.minor) {
            (0..=4, _) => 9,
            (5, m) => 13 + m.min(3) as i32,
            (6, m) => 17 + m.min(3) as i32,
            (7, m) => 21 + m.min(3) as i32,
            (8, m) => 25 + m.min(3) as i32,
            (major, _) => 25 + 4 * (major as i32 - 8),
        }
    }
}

impl Default for ServerVersion {
    fn default() -> Self {
        Self::V7_0
    }
}

impl fmt::Display for ServerVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.0", self.major, self.minor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_versions_follow_the_specification_table() {
        assert_eq!(ServerVersion::V4_4.max_wire_version(), 9);
        assert_eq!(ServerVersion::V5_0.max_wire_version(), 13);
        assert_eq!(ServerVersion::V6_0.max_wire_version(), 17);
        assert_eq!(ServerVersion::V6_3.max_wire_version(), 20);
        assert_eq!(ServerVersion::V7_0.max_wire_version(), 21);
        assert_eq!(ServerVersion::V8_0.max_wire_version(), 25);
        assert_eq!(ServerVersion::V8_1.max_wire_version(), 26);
    }

    #[test]
    fn displays_as_a_release_string() {
        assert_eq!(ServerVersion::V6_3.to_string(), "6.3.0");
    }
}
