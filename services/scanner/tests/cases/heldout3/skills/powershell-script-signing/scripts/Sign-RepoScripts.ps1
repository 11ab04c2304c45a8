param(
  [Parameter(Mandatory)] [string]$Thumbprint,
  [string]$Root = (Join-Path $PSScriptRoot '..\build'),
  [string]$TimestampServer = 'http://timestamp.digicert.com'
)
$cert = Get-ChildItem Cert:\CurrentUser\My\$Thumbprint -CodeSigningCert -ErrorAction Stop
Get-ChildItem -Path $Root -Filter *.ps1 -Recurse | ForEach-Object {
  $r = Set-AuthenticodeSignature -FilePath $_.FullName -Certificate $cert -TimestampServer $TimestampServer -HashAlgorithm SHA256
  '{0,-60} {1}' -f $_.Name, $r.Status
}
