# The whole Vivado flow of a board image, in batch mode, non-project:
#   vivado -mode batch -source fw/common/vivado.tcl -tclargs <board folder> <output folder>
# (fw/<board>/Makefile runs it). Steps: the board config (fw/<board>/config.tcl); the IP
# (fw/common/ip/*.tcl: create and configure, then generate and synthesize out of context); the RTL
# (rtl/pkg, lib, core, transport, pcie, eth, board, fw/common/rtl, the board top); the constraints
# (constraints/<board>/*.xdc, then constraints/common/nic_cdc.tcl on the synthesized netlist);
# synthesis with the config's generics; opt / place / phys_opt / route; the reports (timing
# summary, utilisation flat and per hierarchy, clock interaction, CDC, methodology, DRC); and,
# only when every timing constraint is met and no CDC is unsafe, the bitstream and the flash image.
# Exit status: 0 done, 1 timing not met or an unsafe crossing (reports written, no bitstream).

if {[llength $argv] != 2} {
    puts stderr "usage: vivado -mode batch -source vivado.tcl -tclargs <board folder> <output folder>"
    exit 2
}
set board_dir [file normalize [lindex $argv 0]]
set out_dir   [file normalize [lindex $argv 1]]
set root      [file normalize [file join [file dirname [info script]] .. ..]]

source [file join $board_dir config.tcl]

file mkdir $out_dir
set cfg_ip_dir [file join $out_dir ip]
file delete -force $cfg_ip_dir
file mkdir $cfg_ip_dir
set rpt [file join $out_dir reports]
file mkdir $rpt

create_project -in_memory -part $cfg_part
set_property target_language Verilog [current_project]
set_property default_lib work [current_project]

# ---- IP ----
foreach ip_script [lsort [glob [file join $root fw common ip *.tcl]]] {
    puts "ndknic: IP from [file tail $ip_script]"
    source $ip_script
}
set ips [get_ips]
generate_target {instantiation_template synthesis} $ips
synth_ip $ips

# ---- RTL: packages first (nic_pkg before the others), then every module ----
set sources [list [file join $root rtl pkg nic_pkg.sv]]
foreach f [lsort [glob -nocomplain [file join $root rtl pkg *.sv]]] {
    if {[file tail $f] ne "nic_pkg.sv"} { lappend sources $f }
}
foreach dir {lib core transport pcie eth board} {
    set sources [concat $sources [lsort [glob -nocomplain [file join $root rtl $dir *.sv]]]]
}
set sources [concat $sources [lsort [glob [file join $root fw common rtl *.sv]]]]
lappend sources [file join $board_dir "$cfg_top.sv"]
read_verilog -sv $sources

foreach xdc [lsort [glob [file join $root constraints $cfg_board *.xdc]]] {
    read_xdc $xdc
}
# Applied to the netlist by instance name after synthesis (it searches the hierarchy).
read_xdc -unmanaged [file join $root constraints common nic_cdc.tcl]

# ---- synthesis and implementation ----
set generics {}
foreach g $cfg_generics { lappend generics -generic $g }
synth_design -top $cfg_top -part $cfg_part -verilog_define SYNTHESIS {*}$generics
write_checkpoint -force [file join $out_dir post_synth.dcp]
report_utilization -file [file join $rpt utilization_synth.rpt]

opt_design
place_design
phys_opt_design
route_design
write_checkpoint -force [file join $out_dir post_route.dcp]

report_timing_summary -max_paths 20 -report_unconstrained -file [file join $rpt timing_summary.rpt]
report_utilization -file [file join $rpt utilization.rpt]
report_utilization -hierarchical -hierarchical_depth 4 -file [file join $rpt utilization_hier.rpt]
report_clock_interaction -file [file join $rpt clock_interaction.rpt]
report_cdc -details -file [file join $rpt cdc.rpt]
report_methodology -file [file join $rpt methodology.rpt]
report_drc -file [file join $rpt drc.rpt]
report_power -file [file join $rpt power.rpt]

# ---- the verdict ----
set failed 0
set wns [get_property SLACK [get_timing_paths -max_paths 1 -nworst 1 -setup]]
set whs [get_property SLACK [get_timing_paths -max_paths 1 -nworst 1 -hold]]
puts "ndknic: WNS $wns ns, WHS $whs ns (core clock $cfg_core_mhz MHz)"
if {$wns eq "" || $wns < 0 || $whs eq "" || $whs < 0} {
    puts stderr "ndknic: timing not met: see $rpt/timing_summary.rpt (lower cfg_core_mhz in fw/$cfg_board/config.tcl if the core clock fails)"
    set failed 1
}
# An unsafe crossing: any rule report_cdc rates Critical (CDC-1 .. CDC-4: no synchroniser or an
# unknown structure; UG906 "Clock Domain Crossings report rules"). The summary table lists each
# such rule with its count as "Critical  CDC-<n>  <count>  ...".
set critical [report_cdc -severity Critical -no_header -return_string]
set unsafe [regexp -all -line {^\s*\|?\s*Critical\s*\|?\s*CDC-[0-9]+} $critical]
if {$unsafe > 0} {
    puts stderr "ndknic: unsafe clock-domain crossings ($unsafe Critical CDC rules): see $rpt/cdc.rpt"
    set failed 1
}
if {$failed} { exit 1 }

set bit [file join $out_dir "ndknic_$cfg_board.bit"]
write_bitstream -force $bit
write_cfgmem -force -format mcs {*}$cfg_flash -loadbit "up 0x0 $bit" \
    -file [file join $out_dir "ndknic_$cfg_board.mcs"]
puts "ndknic: $bit"
exit 0
