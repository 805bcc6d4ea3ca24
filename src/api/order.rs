//! The `order` query parameter of the lists (`GET /runs`, `GET /fleet-runs`,
//! `GET /sessions`): the API's own type, so that what a client may send is
//! described by the API and the store's [`Order`] carries no HTTP schema.

use serde::Deserialize;
use utoipa::ToSchema;

use crate::store::Order;

/// Which end of a list comes first: `asc`, oldest first (the default), or
/// `desc`, newest first.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ListOrder {
    /// Oldest first.
    #[default]
    Asc,
    /// Newest first.
    Desc,
}

impl From<ListOrder> for Order {
    fn from(order: ListOrder) -> Order {
        match order {
            ListOrder::Asc => Order::OldestFirst,
            ListOrder::Desc => Order::NewestFirst,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> serde_json::Result<ListOrder> {
        serde_json::from_value(serde_json::Value::String(text.into()))
    }

    #[test]
    fn asc_and_desc_name_the_store_orders_and_nothing_else_is_an_order() {
        assert_eq!(Order::from(parse("asc").unwrap()), Order::OldestFirst);
        assert_eq!(Order::from(parse("desc").unwrap()), Order::NewestFirst);
        assert_eq!(Order::from(ListOrder::default()), Order::OldestFirst);
        for refused in ["ASC", "Desc", "newest", ""] {
            assert!(parse(refused).is_err(), "{refused:?}");
        }
    }
}
