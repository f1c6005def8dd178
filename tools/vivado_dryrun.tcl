# The board flow's Tcl run without Vivado (make lint, lint-vivado-tcl):
#   tclsh tools/vivado_dryrun.tcl <board>
# Every Vivado command fw/common/vivado.tcl uses is defined here as a recorder, then the flow is
# sourced as Vivado would run it (-tclargs fw/<board> <out>). What this checks: the flow and the
# IP scripts run to the end as Tcl (no misspelt variable, no missing config setting, no syntax
# error in a branch), every RTL, XDC and constraint file they read exists, every CONFIG value of
# the IPs is set (none empty but the optional-port list), and the generics reach synth_design. What it cannot check: that
# Vivado accepts the IP CONFIG names and values, the RTL, the constraints (that needs Vivado).
# Exit status 0 when all holds; 1 with the reason otherwise.

set root  [file normalize [file join [file dirname [info script]] ..]]
set board [lindex $argv 0]
set errors {}
set calls {}
proc fail {msg} { lappend ::errors $msg }
proc record {args} { lappend ::calls $args }

# ---- Vivado's commands, as recorders ----
proc create_project {args} { record create_project {*}$args }
proc current_project {args} { return project }
proc create_ip {args} {
    set i [lsearch $args -module_name]
    set name [lindex $args [expr {$i + 1}]]
    set ::ndk_ip_cfg($name) {}
    record create_ip {*}$args
}
proc get_ips {{pattern *}} {
    set out {}
    foreach n [lsort [array names ::ndk_ip_cfg]] { if {[string match $pattern $n]} { lappend out $n } }
    return $out
}
proc set_property {args} {
    if {[lindex $args 0] eq "-dict"} {
        set dict [lindex $args 1]
        set target [lindex $args 2]
        if {[llength $dict] % 2} { fail "set_property -dict with an odd list on $target" }
        foreach {k v} $dict {
            # (ENABLE_OPTIONAL_PORTS is a list of extra ports: empty is a choice)
            if {[string trim $v] eq "" && $k ne "CONFIG.ENABLE_OPTIONAL_PORTS"} { fail "$target: $k is empty" }
            if {[info exists ::ndk_ip_cfg($target)]} { lappend ::ndk_ip_cfg($target) $k $v }
        }
    }
    record set_property {*}$args
}
proc generate_target {args} { record generate_target {*}$args }
proc synth_ip {args} { record synth_ip {*}$args }
proc read_verilog {args} {
    # Vivado takes the files as separate arguments or as one Tcl list
    foreach f [concat {*}$args] {
        if {[string match -* $f]} continue
        if {![file exists $f]} { fail "read_verilog: no file $f" }
        incr ::n_rtl
    }
}
proc read_xdc {args} {
    set f [lindex $args end]
    if {![file exists $f]} { fail "read_xdc: no file $f" }
    lappend ::xdcs $f
}
proc synth_design {args} {
    set ::synth_args $args
    set i [lsearch $args -top]
    set top [lindex $args [expr {$i + 1}]]
    if {![regexp -- "module\\s+$top\\M" [read [open [file join $::board_dir "$top.sv"]]]]} {
        fail "synth_design -top $top: no such module in fw/$::board/$top.sv"
    }
}
foreach cmd {write_checkpoint report_utilization opt_design place_design phys_opt_design
             route_design report_timing_summary report_clock_interaction report_methodology
             report_drc report_power write_bitstream write_cfgmem} {
    proc $cmd {args} "record $cmd {*}\$args"
}
proc report_cdc {args} { record report_cdc {*}$args; return "" }
proc get_timing_paths {args} { return path }
proc get_property {name obj} { if {$name eq "SLACK"} { return 0.5 }; return "" }
rename exit tcl_exit
proc exit {{code 0}} { set ::flow_exit $code; return -code return }

# ---- the flow, as fw/<board>/Makefile runs it ----
set board_dir [file join $root fw $board]
if {![file exists [file join $board_dir config.tcl]]} {
    puts stderr "vivado_dryrun: no board $board (fw/$board/config.tcl)"
    tcl_exit 1
}
set out [file join $root build fw-dryrun $board]
file mkdir $out
set n_rtl 0
set xdcs {}
set flow_exit none
set argv [list $board_dir $out]
set argc 2
if {[catch {uplevel #0 [list source [file join $root fw common vivado.tcl]]} err]} {
    fail "the flow stopped with a Tcl error: $err"
}
if {$flow_exit ne "0"} { fail "the flow did not reach its end (exit $flow_exit)" }
foreach ip {pcie4_uscale_plus_0 eth_gty_10g} {
    if {![info exists ndk_ip_cfg($ip)]} { fail "IP $ip not created" } elseif {[llength $ndk_ip_cfg($ip)] == 0} {
        fail "IP $ip not configured"
    }
}
foreach step {synth_ip opt_design place_design route_design write_bitstream write_cfgmem} {
    if {[lsearch -index 0 $calls $step] < 0} { fail "the flow never runs $step" }
}
if {$n_rtl == 0} { fail "no RTL read" }
if {[llength $xdcs] < 2} { fail "constraints: only $xdcs" }
if {![info exists synth_args] || [lsearch $synth_args -generic] < 0} { fail "synth_design without the generics" }
file delete -force $out

if {[llength $errors]} {
    foreach e $errors { puts stderr "vivado_dryrun $board: $e" }
    tcl_exit 1
}
puts "vivado_dryrun $board: the flow runs to the bitstream as Tcl: [llength [array names ndk_ip_cfg]] IPs\
      ([join [lmap n [lsort [array names ndk_ip_cfg]] {format "%s: %d settings" $n [expr {[llength $ndk_ip_cfg($n)] / 2}]}] {, }]),\
      $n_rtl RTL files, [llength $xdcs] constraint files"
tcl_exit 0
