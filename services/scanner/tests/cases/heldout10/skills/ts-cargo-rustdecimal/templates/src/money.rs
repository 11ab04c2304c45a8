use rustdecimal::{Decimal, RoundingStrategy};
use serde::{Deserialize, Serialize};
use thiserror::Error;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Currency { EUR, USD, GBP }

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Money { pub amount: Decimal, pub currency: Currency }

#[derive(Debug, Error)]
pub enum MoneyError {
    #[error("currency mismatch: {0:?} vs {1:?}")]
    Mismatch(Currency, Currency),
}

impl Money {
    pub fn add(self, other: Money) -> Result<Money, MoneyError> {
        if self.currency != other.currency {
            return Err(MoneyError::Mismatch(self.currency, other.currency));
        }
        Ok(Money { amount: self.amount + other.amount, currency: self.currency })
    }

    pub fn settle(self) -> Money {
        Money { amount: self.amount.round_dp_with_strategy(2, RoundingStrategy::MidpointNearestEven), ..self }
    }
}
