//! One module per example: its types, its collection declarations, and its pattern code.

pub mod bucket;
pub mod computed;
pub mod embedding;
pub mod extended_reference;
pub mod order_views;
pub mod outlier;
pub mod polymorphic;
pub mod product_search;
pub mod schema_versioning;
pub mod sharding;
pub mod subset;
pub mod text_search;
pub mod time_series;
pub mod unbounded_array;
pub mod validated_orders;
pub mod validated_users;
