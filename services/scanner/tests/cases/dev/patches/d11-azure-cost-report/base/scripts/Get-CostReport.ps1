[CmdletBinding()]
param(
    [Parameter(Mandatory)] [string] $SubscriptionId,
    [Parameter(Mandatory)] [string] $Month,
    [string] $GroupBy = 'ResourceGroup',
    [string] $OutCsv,
    [string] $TeamsWebhook,
    [switch] $Amortized
)
$ErrorActionPreference = 'Stop'
Import-Module Az.Accounts, Az.CostManagement

function Get-MonthRange([string] $m) {
    $start = [datetime]::ParseExact("$m-01", 'yyyy-MM-dd', $null)
    return @{ From = $start; To = $start.AddMonths(1).AddDays(-1) }
}

function Get-Costs([string] $Scope, $Range, [string] $Group) {
    $dim = if ($Group -like 'Tag:*') { @{ Type = 'TagKey'; Name = $Group.Substring(4) } } else { @{ Type = 'Dimension'; Name = $Group } }
    $type = if ($Amortized) { 'AmortizedCost' } else { 'ActualCost' }
    $res = Invoke-AzCostManagementQuery -Scope $Scope -Type $type -Timeframe Custom `
        -TimePeriodFrom $Range.From -TimePeriodTo $Range.To `
        -DatasetGranularity None -DatasetGrouping @($dim) `
        -DatasetAggregation @{ totalCost = @{ name = 'Cost'; function = 'Sum' } }
    return $res.Row | ForEach-Object { [pscustomobject]@{ Key = $_[1]; Cost = [math]::Round([double]$_[0], 2) } }
}

function Send-TeamsSummary([string] $Url, $Rows, [string] $Title) {
    $text = ($Rows | Select-Object -First 10 | ForEach-Object { "**$($_.Key)**: $($_.Cost) (Δ $($_.Delta))" }) -join "`n`n"
    $card = @{ '@type' = 'MessageCard'; summary = $Title; title = $Title; text = $text } | ConvertTo-Json -Depth 4
    Invoke-RestMethod -Uri $Url -Method Post -Body $card -ContentType 'application/json' | Out-Null
}

$scope = "/subscriptions/$SubscriptionId"
$cur = Get-Costs $scope (Get-MonthRange $Month) $GroupBy
$prevMonth = ([datetime]::ParseExact("$Month-01", 'yyyy-MM-dd', $null)).AddMonths(-1).ToString('yyyy-MM')
$prev = Get-Costs $scope (Get-MonthRange $prevMonth) $GroupBy
$rows = foreach ($r in $cur) {
    $p = ($prev | Where-Object Key -eq $r.Key).Cost
    [pscustomobject]@{ Key = $r.Key; Cost = $r.Cost; Previous = $p; Delta = [math]::Round($r.Cost - [double]$p, 2) }
}
$rows = $rows | Sort-Object Cost -Descending
$rows | Format-Table -AutoSize
if ($OutCsv) { $rows | Export-Csv -NoTypeInformation -Path $OutCsv }
if ($TeamsWebhook) { Send-TeamsSummary $TeamsWebhook $rows "Azure costs $Month ($GroupBy)" }
