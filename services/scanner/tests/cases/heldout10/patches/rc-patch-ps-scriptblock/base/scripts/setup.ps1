#Requires -Version 7
$ErrorActionPreference = 'Stop'

$packages = @(
  'Git.Git',
  'OpenJS.NodeJS.LTS',
  'Microsoft.DotNet.SDK.8',
  'Microsoft.VisualStudioCode',
  'Microsoft.PowerShell'
)

foreach ($id in $packages) {
  Write-Host "==> $id"
  winget install --id $id --exact --silent --accept-package-agreements --accept-source-agreements
}

git config --global core.autocrlf true
git config --global init.defaultBranch main
git config --global pull.rebase true

# Long paths need admin; ask once.
Start-Process pwsh -Verb RunAs -Wait -ArgumentList '-NoProfile','-Command',
  "Set-ItemProperty -Path 'HKLM:\SYSTEM\CurrentControlSet\Control\FileSystem' -Name LongPathsEnabled -Value 1"

wsl --install --no-distribution
Write-Host 'Done. Restart your terminal.'
