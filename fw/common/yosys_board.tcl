# Yosys (0.23) run on a board top for AMD UltraScale+, with the vendor IPs as the black-box stubs
# of fw/common/stubs (their ports as the IPs document them) and the Xilinx primitives from Yosys's
# own cell library:   NDK_BOARD=vcu118 NDK_SYNTH=check|full yosys -c fw/common/yosys_board.tcl
#   check  read everything, nic_core as a black box (its own checks are make lint / make synth):
#          hierarchy -check (no missing module or port), proc, check -assert; the caller fails
#          the run on "implicitly declared" in the log. Seconds: part of make lint.
#   full   synth_xilinx -family xcup of the whole top, nic_core included, then stat: the resource
#          estimate of make synth-board (tens of minutes; not in CI).
#   shell  the same with nic_core a black box: what the board adds around the core (PCIe
#          interface, crossings, Ethernet port, board glue); make synth-board CORE=0.
#   core   nic_core alone (out of context) at the board's parameters (the nic_core generics of
#          the config: DataWidth 256, its queue counts and tables); make synth-board CORE=only.
#          shell + core is the whole top's estimate in two runs.
# full and core run synth_xilinx's own script with one pass left out: SHARE (SAT-based sharing of
# mutually exclusive $shr / $mul / memory ports) on the 256-bit core did not finish in 11 minutes
# of CPU here (it enumerates activation patterns of the transport's wide shifters); without it
# the counts are an upper bound by whatever sharing would have merged. NDK_SHARE=1 keeps it.
# The top's parameters are the generics of fw/<board>/config.tcl, as Vivado gets them.
yosys -import

set root  [file normalize [file join [file dirname [info script]] .. ..]]
set board $::env(NDK_BOARD)
set mode  $::env(NDK_SYNTH)
set cfg_ip_dir ""
source [file join $root fw $board config.tcl]

set pkgs [list [file join $root rtl pkg nic_pkg.sv]]
foreach f [lsort [glob -nocomplain [file join $root rtl pkg *.sv]]] {
    if {[file tail $f] ne "nic_pkg.sv"} { lappend pkgs $f }
}
set mods {}
set dirs {lib core transport pcie eth board}
if {$mode eq "core"} { set dirs {lib core transport} }
foreach dir $dirs {
    set mods [concat $mods [lsort [glob -nocomplain [file join $root rtl $dir *.sv]]]]
}
if {$mode ne "core"} {
    set mods [concat $mods [lsort [glob [file join $root fw common rtl *.sv]]]]
    lappend mods [file join $root fw $board "$cfg_top.sv"]
}

read_verilog -lib +/xilinx/cells_sim.v
read_verilog -lib +/xilinx/cells_xtra.v
foreach f [lsort [glob [file join $root fw common stubs *.sv]]] { read_verilog -sv $f }
read_verilog -sv -DSYNTHESIS {*}$pkgs {*}$mods

set core_params {DataWidth NumQps NumCqs NumMrs MttEntries MsixVectors}
set sets {}
set core_sets {}
foreach g $cfg_generics {
    set kv [split $g =]
    lappend sets -set [lindex $kv 0] [lindex $kv 1]
    if {[lsearch -exact $core_params [lindex $kv 0]] >= 0} {
        lappend core_sets -set [lindex $kv 0] [lindex $kv 1]
    }
}

# synth_xilinx -family xcup, its coarse step spelled out so SHARE can be left out (above).
proc synth_xcup {top args} {
    if {[info exists ::env(NDK_SHARE)] && $::env(NDK_SHARE) eq "1"} {
        synth_xilinx -family xcup -top $top -flatten {*}$args
        return
    }
    synth_xilinx -family xcup -top $top -flatten {*}$args -run begin:coarse
    techmap -map +/cmp2lut.v -map +/cmp2lcu.v -D LUT_WIDTH=6
    alumacc
    opt
    memory -nomap
    opt_clean
    synth_xilinx -family xcup -top $top -flatten {*}$args -run map_memory:
}

if {$mode eq "core"} {
    # nic_core as nic_board_core instantiates it (DataWidth 256, the config's sizes).
    chparam {*}$core_sets nic_core
    hierarchy -check -top nic_core
    yosys proc
    check
    synth_xcup nic_core -noiopad -noclkbuf
    check
    tee -o [file join $root build synth "board-$board-$mode.stat"] stat
    return
}
chparam {*}$sets $cfg_top

if {$mode eq "check"} {
    blackbox nic_core
    hierarchy -check -top $cfg_top
    yosys proc
    check -assert
    stat
} else {
    if {$mode eq "shell"} { blackbox nic_core }
    hierarchy -check -top $cfg_top
    synth_xcup $cfg_top
    check
    tee -o [file join $root build synth "board-$board-$mode.stat"] stat
}
