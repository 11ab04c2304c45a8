use rust_decimal::{Decimal, RoundingStrategy};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Money {
    pub amount: Decimal,
    pub currency: [u8; 3],
}

pub fn minor_units(currency: &[u8; 3]) -> u32 {
    match currency {
        b"JPY" | b"KRW" => 0,
        b"BHD" | b"KWD" | b"OMR" => 3,
        _ => 2,
    }
}

impl Money {
    pub fn rounded(self) -> Self {
        let dp = minor_units(&self.currency);
        Money {
            amount: self.amount.round_dp_with_strategy(dp, RoundingStrategy::MidpointNearestEven),
            ..self
        }
    }
}
