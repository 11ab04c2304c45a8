//! Where the registry may send requests on a tenant's behalf.
//!
//! Webhooks are URLs an organisation's admin chooses, and the registry connects to them
//! from inside the operator's network. Left open, a tenant could make the registry probe
//! its database port, the cloud's metadata service or anything else only the registry can
//! reach, and read the outcome in the delivery log. So every address that is not plainly
//! public is refused unless the operator allowed its network
//! (`CAIRN_WEBHOOK_ALLOW_NETWORKS`): when the webhook is created (literal addresses and
//! names that always mean this machine or a metadata service) and again when a delivery
//! connects, after DNS resolution ([`GuardedResolver`]), so a name that resolves — or
//! later re-resolves — to such an address is refused too.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;

use ipnet::IpNet;

/// A class of address webhooks may not reach unless the operator allowed it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddressRule {
    /// Cloud metadata services (`169.254.169.254`, `fd00:ec2::254`, `100.100.100.200`,
    /// `168.63.129.16`): they hand out the machine's credentials.
    CloudMetadata,
    /// `0.0.0.0/8`, `::`: "this host" to most stacks.
    Unspecified,
    /// `127.0.0.0/8`, `::1`.
    Loopback,
    /// `10/8`, `172.16/12`, `192.168/16`, the deprecated IPv6 site-local `fec0::/10`.
    Private,
    /// `100.64.0.0/10` (RFC 6598), shared by carriers and by some clouds' internal services.
    CarrierGradeNat,
    /// `169.254.0.0/16`, `fe80::/10`.
    LinkLocal,
    /// `fc00::/7` (RFC 4193).
    UniqueLocal,
    /// `224.0.0.0/4`, `ff00::/8`.
    Multicast,
    /// Ranges that are no public host: `192.0.0.0/24` (protocol assignments),
    /// `198.18.0.0/15` (benchmarking), the documentation ranges, `240.0.0.0/4` and the
    /// broadcast address.
    Reserved,
}

impl AddressRule {
    /// The rule's name, as error messages and the docs say it.
    pub fn describe(self) -> &'static str {
        match self {
            AddressRule::CloudMetadata => "a cloud metadata address",
            AddressRule::Unspecified => "an unspecified address",
            AddressRule::Loopback => "a loopback address",
            AddressRule::Private => "a private-network address",
            AddressRule::CarrierGradeNat => "a carrier-grade NAT address",
            AddressRule::LinkLocal => "a link-local address",
            AddressRule::UniqueLocal => "a unique-local address",
            AddressRule::Multicast => "a multicast address",
            AddressRule::Reserved => "a reserved address",
        }
    }
}

/// The class of `ip` that webhooks may not reach, if any. IPv6 forms that carry an IPv4
/// address (IPv4-mapped `::ffff:a.b.c.d`, IPv4-compatible `::a.b.c.d`, NAT64
/// `64:ff9b::/96` and 6to4 `2002::/16`) are judged by that IPv4 address.
pub fn classify(ip: IpAddr) -> Option<AddressRule> {
    match ip {
        IpAddr::V4(v4) => classify_v4(v4),
        IpAddr::V6(v6) => classify_v6(v6),
    }
}

const METADATA_V4: [Ipv4Addr; 3] = [
    Ipv4Addr::new(169, 254, 169, 254),
    Ipv4Addr::new(100, 100, 100, 200),
    Ipv4Addr::new(168, 63, 129, 16),
];
const METADATA_V6: Ipv6Addr = Ipv6Addr::new(0xfd00, 0x0ec2, 0, 0, 0, 0, 0, 0x0254);

fn classify_v4(ip: Ipv4Addr) -> Option<AddressRule> {
    let [a, b, c, _] = ip.octets();
    Some(match () {
        () if METADATA_V4.contains(&ip) => AddressRule::CloudMetadata,
        () if a == 0 => AddressRule::Unspecified,
        () if a == 127 => AddressRule::Loopback,
        () if a == 10 || (a == 172 && (16..32).contains(&b)) || (a == 192 && b == 168) => AddressRule::Private,
        () if a == 100 && (64..128).contains(&b) => AddressRule::CarrierGradeNat,
        () if a == 169 && b == 254 => AddressRule::LinkLocal,
        () if (224..240).contains(&a) => AddressRule::Multicast,
        () if a >= 240
            || (a == 192 && b == 0 && c == 0)
            || (a == 198 && (18..20).contains(&b))
            || (a == 192 && b == 0 && c == 2)
            || (a == 192 && b == 88 && c == 99)
            || (a == 198 && b == 51 && c == 100)
            || (a == 203 && b == 0 && c == 113) =>
        {
            AddressRule::Reserved
        }
        () => return None,
    })
}

fn classify_v6(ip: Ipv6Addr) -> Option<AddressRule> {
    if let Some(v4) = embedded_v4(ip) {
        return classify_v4(v4);
    }
    let first = ip.segments()[0];
    Some(match () {
        () if ip == METADATA_V6 => AddressRule::CloudMetadata,
        () if ip.is_unspecified() => AddressRule::Unspecified,
        () if ip.is_loopback() => AddressRule::Loopback,
        () if first & 0xffc0 == 0xfe80 => AddressRule::LinkLocal,
        () if first & 0xffc0 == 0xfec0 => AddressRule::Private,
        () if first & 0xfe00 == 0xfc00 => AddressRule::UniqueLocal,
        () if first & 0xff00 == 0xff00 => AddressRule::Multicast,
        // Documentation (2001:db8::/32), the discard prefix (100::/64) and the IETF
        // protocol assignments (2001::/23, Teredo's 2001::/32 among them: it tunnels to
        // any IPv4 address).
        () if (first == 0x2001 && ip.segments()[1] == 0x0db8)
            || (first == 0x0100 && ip.segments()[1..4] == [0; 3])
            || (first == 0x2001 && ip.segments()[1] < 0x0200) =>
        {
            AddressRule::Reserved
        }
        () => return None,
    })
}

/// The IPv4 address an IPv6 address stands for, in the forms a stack may route to it.
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    let low = Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8);
    match s {
        // IPv4-mapped, IPv4-translated (RFC 2765) and the deprecated IPv4-compatible form
        // (not :: and ::1, which are judged as IPv6).
        [0, 0, 0, 0, 0, 0xffff, _, _] | [0, 0, 0, 0, 0xffff, 0, _, _] => Some(low),
        [0, 0, 0, 0, 0, 0, hi, lo] if hi != 0 || lo > 1 => Some(low),
        // NAT64: the well-known prefix and the local-use prefix (RFC 8215, /48 with the
        // IPv4 address in the last 32 bits as deployed with a /96).
        [0x0064, 0xff9b, 0, 0, 0, 0, _, _] | [0x0064, 0xff9b, 0x0001, _, _, _, _, _] => Some(low),
        // 6to4: the IPv4 address follows the prefix.
        [0x2002, hi, lo, ..] => Some(Ipv4Addr::new((hi >> 8) as u8, hi as u8, (lo >> 8) as u8, lo as u8)),
        _ => None,
    }
}

/// Names that always mean this machine or a metadata service, whatever DNS says.
fn classify_name(name: &str) -> Option<AddressRule> {
    let name = name.trim_end_matches('.').to_ascii_lowercase();
    if name == "localhost" || name.ends_with(".localhost") {
        return Some(AddressRule::Loopback);
    }
    if matches!(
        name.as_str(),
        "metadata" | "metadata.google.internal" | "instance-data" | "instance-data.ec2.internal"
    ) {
        return Some(AddressRule::CloudMetadata);
    }
    None
}

/// Why an outbound request was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "{target} is {}, which webhooks may not reach: use a public address \
     (operators allow chosen networks with CAIRN_WEBHOOK_ALLOW_NETWORKS)",
    rule.describe()
)]
pub struct Refused {
    /// The address or name refused.
    pub target: String,
    /// The rule it broke.
    pub rule: AddressRule,
}

/// The networks an operator lets webhooks reach although their rule refuses them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OutboundPolicy {
    allowed: Vec<IpNet>,
}

impl OutboundPolicy {
    /// Refuses every address class of [`AddressRule`] (the default).
    pub fn strict() -> Self {
        OutboundPolicy::default()
    }

    /// Allows these networks besides public addresses.
    pub fn allowing(allowed: Vec<IpNet>) -> Self {
        OutboundPolicy { allowed }
    }

    /// Parses `CAIRN_WEBHOOK_ALLOW_NETWORKS`: CIDR networks (or single addresses) separated
    /// by commas or spaces.
    pub fn parse(list: &str) -> Result<Self, String> {
        let mut allowed = Vec::new();
        for item in list.split([',', ' ', '\n', '\t']).filter(|s| !s.is_empty()) {
            let net = item
                .parse::<IpNet>()
                .or_else(|_| item.parse::<IpAddr>().map(IpNet::from))
                .map_err(|_| format!("'{item}' is not a network: write it like 10.20.0.0/16, 127.0.0.1 or fd00::/8"))?;
            allowed.push(net.trunc());
        }
        Ok(OutboundPolicy { allowed })
    }

    /// The networks allowed besides public addresses.
    pub fn allowed(&self) -> &[IpNet] {
        &self.allowed
    }

    /// Whether a request may connect to `ip`.
    pub fn check_ip(&self, ip: IpAddr) -> Result<(), Refused> {
        let Some(rule) = classify(ip) else { return Ok(()) };
        let canonical = match ip {
            IpAddr::V6(v6) => embedded_v4(v6).map_or(ip, IpAddr::V4),
            IpAddr::V4(_) => ip,
        };
        // A metadata address hands out the machine's credentials: allowing a network
        // around it (a CGNAT or link-local range) does not allow it; only naming the
        // address itself does.
        let covers = |net: &IpNet| {
            let hit = net.contains(&ip) || net.contains(&canonical);
            hit && (rule != AddressRule::CloudMetadata || net.prefix_len() == net.max_prefix_len())
        };
        if self.allowed.iter().any(covers) {
            return Ok(());
        }
        Err(Refused {
            target: ip.to_string(),
            rule,
        })
    }

    /// Whether a URL's host may be used, as far as it can be told without DNS: literal
    /// addresses are checked, and names that always mean this machine or a metadata
    /// service are refused (unless the operator allowed loopback or that address). Other
    /// names are checked when a delivery resolves them.
    pub fn check_host(&self, host: url::Host<&str>) -> Result<(), Refused> {
        match host {
            url::Host::Ipv4(v4) => self.check_ip(IpAddr::V4(v4)),
            url::Host::Ipv6(v6) => self.check_ip(IpAddr::V6(v6)),
            url::Host::Domain(name) => match classify_name(name) {
                Some(AddressRule::Loopback) => self.check_ip(IpAddr::V4(Ipv4Addr::LOCALHOST)).map_err(|_| Refused {
                    target: name.to_owned(),
                    rule: AddressRule::Loopback,
                }),
                Some(rule) => Err(Refused {
                    target: name.to_owned(),
                    rule,
                }),
                None => Ok(()),
            },
        }
    }
}

/// Looks a host name up. The system resolver in production; tests answer with chosen
/// addresses so a name that resolves to a refused address can be tried without DNS.
pub trait Lookup: Send + Sync + 'static {
    /// The addresses `name` resolves to.
    fn lookup(&self, name: String) -> futures::future::BoxFuture<'static, std::io::Result<Vec<IpAddr>>>;
}

/// The operating system's resolver (`getaddrinfo`, through tokio).
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemLookup;

impl Lookup for SystemLookup {
    fn lookup(&self, name: String) -> futures::future::BoxFuture<'static, std::io::Result<Vec<IpAddr>>> {
        Box::pin(async move {
            Ok(tokio::net::lookup_host((name.as_str(), 0))
                .await?
                .map(|a| a.ip())
                .collect())
        })
    }
}

/// A DNS resolver for outbound HTTP clients that refuses a name when any of its
/// addresses is refused by the policy: the check happens on the addresses the connection
/// will use, at every connection, so a name re-pointed at an internal address after the
/// webhook was created is refused too.
pub struct GuardedResolver {
    policy: Arc<OutboundPolicy>,
    lookup: Arc<dyn Lookup>,
}

impl GuardedResolver {
    /// A resolver that looks names up with `lookup` and checks them against `policy`.
    pub fn new(policy: Arc<OutboundPolicy>, lookup: Arc<dyn Lookup>) -> Self {
        GuardedResolver { policy, lookup }
    }
}

impl reqwest::dns::Resolve for GuardedResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let policy = self.policy.clone();
        let lookup = self.lookup.clone();
        let name = name.as_str().to_owned();
        Box::pin(async move {
            let refuse = |e: Refused| -> Box<dyn std::error::Error + Send + Sync> { Box::new(e) };
            policy.check_host(url::Host::Domain(&name)).map_err(refuse)?;
            let addresses = lookup.lookup(name.clone()).await?;
            if addresses.is_empty() {
                return Err(format!("{name} resolves to no address").into());
            }
            for ip in &addresses {
                policy.check_ip(*ip).map_err(|e| {
                    refuse(Refused {
                        target: format!("{name} ({})", e.target),
                        rule: e.rule,
                    })
                })?;
            }
            let resolved: reqwest::dns::Addrs = Box::new(addresses.into_iter().map(|ip| SocketAddr::new(ip, 0)));
            Ok(resolved)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(text: &str) -> Option<AddressRule> {
        classify(text.parse().unwrap())
    }

    #[test]
    fn every_address_class_is_named() {
        use AddressRule::*;
        for (address, expected) in [
            ("169.254.169.254", Some(CloudMetadata)),
            ("100.100.100.200", Some(CloudMetadata)),
            ("168.63.129.16", Some(CloudMetadata)),
            ("fd00:ec2::254", Some(CloudMetadata)),
            ("0.0.0.0", Some(Unspecified)),
            ("0.1.2.3", Some(Unspecified)),
            ("::", Some(Unspecified)),
            ("127.0.0.1", Some(Loopback)),
            ("127.255.0.9", Some(Loopback)),
            ("::1", Some(Loopback)),
            ("10.0.0.1", Some(Private)),
            ("172.16.0.1", Some(Private)),
            ("172.31.255.255", Some(Private)),
            ("192.168.1.1", Some(Private)),
            ("fec0::1", Some(Private)),
            ("100.64.0.1", Some(CarrierGradeNat)),
            ("100.127.255.254", Some(CarrierGradeNat)),
            ("169.254.1.1", Some(LinkLocal)),
            ("fe80::1", Some(LinkLocal)),
            ("fc00::1", Some(UniqueLocal)),
            ("fd12:3456::1", Some(UniqueLocal)),
            ("224.0.0.1", Some(Multicast)),
            ("239.255.255.250", Some(Multicast)),
            ("ff02::1", Some(Multicast)),
            ("255.255.255.255", Some(Reserved)),
            ("240.0.0.1", Some(Reserved)),
            ("192.0.2.1", Some(Reserved)),
            ("198.18.0.1", Some(Reserved)),
            ("2001:db8::1", Some(Reserved)),
            // IPv4 inside IPv6 is judged by the IPv4 address.
            ("::ffff:127.0.0.1", Some(Loopback)),
            ("::ffff:169.254.169.254", Some(CloudMetadata)),
            ("::ffff:10.1.2.3", Some(Private)),
            ("::10.1.2.3", Some(Private)),
            ("64:ff9b::a00:1", Some(Private)),
            ("2002:7f00:1::", Some(Loopback)),
            ("::2", Some(Unspecified)),
            ("::ffff:0:a00:1", Some(Private)),
            ("64:ff9b:1::a00:1", Some(Private)),
            ("2001::1", Some(Reserved)),
            ("192.88.99.1", Some(Reserved)),
            // Public addresses pass.
            ("93.184.215.14", None),
            ("172.32.0.1", None),
            ("100.128.0.1", None),
            ("2606:4700::1111", None),
            ("::ffff:93.184.215.14", None),
        ] {
            assert_eq!(rule(address), expected, "{address}");
        }
    }

    #[test]
    fn allowed_networks_let_chosen_addresses_through() {
        let strict = OutboundPolicy::strict();
        let refused = strict.check_ip("127.0.0.1".parse().unwrap()).unwrap_err();
        assert_eq!(refused.rule, AddressRule::Loopback);
        assert!(
            refused.to_string().contains("127.0.0.1 is a loopback address"),
            "{refused}"
        );
        assert!(refused.to_string().contains("CAIRN_WEBHOOK_ALLOW_NETWORKS"));

        let policy = OutboundPolicy::parse("127.0.0.0/8, 10.20.0.0/16 ::1").unwrap();
        assert!(policy.check_ip("127.0.0.1".parse().unwrap()).is_ok());
        assert!(
            policy.check_ip("::ffff:127.0.0.1".parse().unwrap()).is_ok(),
            "mapped form"
        );
        assert!(policy.check_ip("::1".parse().unwrap()).is_ok());
        assert!(policy.check_ip("10.20.3.4".parse().unwrap()).is_ok());
        assert_eq!(
            policy.check_ip("10.21.0.1".parse().unwrap()).unwrap_err().rule,
            AddressRule::Private
        );
        assert_eq!(
            policy.check_ip("169.254.169.254".parse().unwrap()).unwrap_err().rule,
            AddressRule::CloudMetadata
        );
        assert!(policy.check_ip("93.184.215.14".parse().unwrap()).is_ok());
        // A network around a metadata address does not allow it; the address itself does.
        let broad = OutboundPolicy::parse("100.64.0.0/10,169.254.0.0/16").unwrap();
        assert!(broad.check_ip("100.64.1.1".parse().unwrap()).is_ok());
        assert_eq!(
            broad.check_ip("100.100.100.200".parse().unwrap()).unwrap_err().rule,
            AddressRule::CloudMetadata
        );
        assert!(broad.check_ip("169.254.169.254".parse().unwrap()).is_err());
        let exact = OutboundPolicy::parse("169.254.169.254").unwrap();
        assert!(exact.check_ip("169.254.169.254".parse().unwrap()).is_ok());

        let e = OutboundPolicy::parse("10.0.0.0/33").unwrap_err();
        assert!(e.contains("'10.0.0.0/33' is not a network"), "{e}");
        assert!(OutboundPolicy::parse("banana").is_err());
        assert_eq!(OutboundPolicy::parse(" ").unwrap(), OutboundPolicy::strict());
    }

    #[test]
    fn names_that_always_mean_this_machine_are_refused() {
        let strict = OutboundPolicy::strict();
        for name in ["localhost", "LOCALHOST.", "api.localhost"] {
            assert_eq!(
                strict.check_host(url::Host::Domain(name)).unwrap_err().rule,
                AddressRule::Loopback,
                "{name}"
            );
        }
        assert_eq!(
            strict
                .check_host(url::Host::Domain("metadata.google.internal"))
                .unwrap_err()
                .rule,
            AddressRule::CloudMetadata
        );
        assert!(strict.check_host(url::Host::Domain("hooks.example.com")).is_ok());
        let loopback = OutboundPolicy::parse("127.0.0.0/8").unwrap();
        assert!(loopback.check_host(url::Host::Domain("localhost")).is_ok());
    }

    struct Fixed(Vec<IpAddr>);

    impl Lookup for Fixed {
        fn lookup(&self, _name: String) -> futures::future::BoxFuture<'static, std::io::Result<Vec<IpAddr>>> {
            let answer = self.0.clone();
            Box::pin(async move { Ok(answer) })
        }
    }

    #[tokio::test]
    async fn the_resolver_refuses_a_name_when_any_address_is_refused() {
        use reqwest::dns::Resolve as _;
        let resolve = |addresses: &[&str], policy: OutboundPolicy| {
            let lookup = Fixed(addresses.iter().map(|a| a.parse().unwrap()).collect());
            GuardedResolver::new(Arc::new(policy), Arc::new(lookup))
                .resolve(reqwest::dns::Name::from_str("hooks.example.com").unwrap())
        };
        use std::str::FromStr as _;
        let ok = resolve(&["93.184.215.14"], OutboundPolicy::strict()).await.unwrap();
        assert_eq!(ok.map(|a| a.ip().to_string()).collect::<Vec<_>>(), ["93.184.215.14"]);
        let mixed = resolve(&["93.184.215.14", "10.0.0.7"], OutboundPolicy::strict())
            .await
            .err()
            .unwrap();
        assert!(
            mixed
                .to_string()
                .contains("hooks.example.com (10.0.0.7) is a private-network address"),
            "{mixed}"
        );
        let allowed = resolve(&["10.0.0.7"], OutboundPolicy::parse("10.0.0.0/8").unwrap()).await;
        assert!(allowed.is_ok());
    }
}
