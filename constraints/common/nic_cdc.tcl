# Timing constraints of every clock-domain crossing built from rtl/lib's primitives, applied to
# each instance found in the netlist (read as an unmanaged Tcl constraint file after synthesis:
# `read_xdc -unmanaged constraints/common/nic_cdc.tcl`). A crossing not built from these
# primitives needs its own constraint: none is allowed without one.
#
# nic_cdc_async_fifo: the Gray pointers (wr_gray_q -> u_wr_sync, rd_gray_q -> u_rd_sync) and the
#   held committed pointer (wr_hold_q -> rd_wr_ptr_q) get set_max_delay -datapath_only of the
#   smaller of the two clock periods and a bus skew of half the destination period, so the bits of
#   one value arrive together; the req/ack toggles likewise; the RAM's
#   read port reads words written at least two destination cycles earlier (pointer synchroniser),
#   so its path from the write clock gets the same max delay.
# nic_cdc_counter: src_gray_q -> u_sync like a FIFO pointer.
# nic_cdc_sync (a stand-alone level): the path into stage 0 is a false path.
# nic_cdc_reset: the asynchronous set of the synchroniser is a false path.

proc ndk_min_period {a b} {
    set pa [get_property -min PERIOD $a]
    set pb [get_property -min PERIOD $b]
    return [expr {min($pa, $pb)}]
}

proc ndk_cdc_bus {src_regs dst_regs} {
    if {[llength $src_regs] == 0 || [llength $dst_regs] == 0} { return }
    set src_clk [get_clocks -quiet -of_objects [lindex $src_regs 0]]
    set dst_clk [get_clocks -quiet -of_objects [lindex $dst_regs 0]]
    if {$src_clk eq "" || $dst_clk eq ""} { return }
    set p [ndk_min_period $src_clk $dst_clk]
    set_max_delay -datapath_only -from $src_regs -to $dst_regs $p
    set_bus_skew -from $src_regs -to $dst_regs [expr {[get_property -min PERIOD $dst_clk] / 2.0}]
}

foreach inst [get_cells -quiet -hier -filter {ORIG_REF_NAME == nic_cdc_async_fifo || REF_NAME == nic_cdc_async_fifo}] {
    ndk_cdc_bus [get_cells -quiet "$inst/wr_gray_q_reg[*]"] [get_cells -quiet "$inst/u_wr_sync/sync_q_reg[*]"]
    ndk_cdc_bus [get_cells -quiet "$inst/rd_gray_q_reg[*]"] [get_cells -quiet "$inst/u_rd_sync/sync_q_reg[*]"]
    ndk_cdc_bus [get_cells -quiet "$inst/wr_hold_q_reg[*]"] [get_cells -quiet "$inst/rd_wr_ptr_q_reg[*]"]
    ndk_cdc_bus [get_cells -quiet "$inst/wr_req_q_reg"] [get_cells -quiet "$inst/u_req_sync/sync_q_reg[*]"]
    ndk_cdc_bus [get_cells -quiet "$inst/rd_ack_q_reg"] [get_cells -quiet "$inst/u_ack_sync/sync_q_reg[*]"]
    # The RAM (LUT RAM or block RAM): written in wr_clk, read in rd_clk.
    set ram [get_cells -quiet -hier -filter "NAME =~ $inst/mem_q_reg* && IS_PRIMITIVE"]
    set out [get_cells -quiet "$inst/rd_data_q_reg[*]"]
    if {[llength $ram] > 0 && [llength $out] > 0} {
        set wclk [get_clocks -quiet -of_objects [get_cells -quiet "$inst/wr_ptr_q_reg[0]"]]
        set rclk [get_clocks -quiet -of_objects $out]
        if {$wclk ne "" && $rclk ne ""} {
            set_max_delay -datapath_only -from $ram -to $out [ndk_min_period $wclk $rclk]
        }
    }
}

foreach inst [get_cells -quiet -hier -filter {ORIG_REF_NAME == nic_cdc_counter || REF_NAME == nic_cdc_counter}] {
    ndk_cdc_bus [get_cells -quiet "$inst/src_gray_q_reg[*]"] [get_cells -quiet "$inst/u_sync/sync_q_reg[*]"]
}

# Stand-alone level synchronisers (not inside a FIFO or counter, whose buses are constrained
# above): nothing but stage 0 is fed from another domain.
foreach inst [get_cells -quiet -hier -filter {ORIG_REF_NAME == nic_cdc_sync || REF_NAME == nic_cdc_sync}] {
    set parent [get_property -quiet PARENT $inst]
    if {[llength [get_cells -quiet $parent -filter {ORIG_REF_NAME == nic_cdc_async_fifo || ORIG_REF_NAME == nic_cdc_counter || REF_NAME == nic_cdc_async_fifo || REF_NAME == nic_cdc_counter}]] > 0} {
        continue
    }
    # Stage 0: the flip-flops whose D input is not driven by another stage of this instance.
    set stages [get_cells -quiet "$inst/sync_q_reg[*]"]
    foreach ff $stages {
        set d_pin [get_pins -quiet "$ff/D"]
        set drv [get_cells -quiet -of_objects [get_pins -quiet -leaf -filter {DIRECTION == OUT} -of_objects [get_nets -quiet -of_objects $d_pin]]]
        if {[lsearch -exact $stages $drv] < 0} {
            set_false_path -to $d_pin
        }
    }
}

foreach inst [get_cells -quiet -hier -filter {ORIG_REF_NAME == nic_cdc_reset || REF_NAME == nic_cdc_reset}] {
    set_false_path -to [get_pins -quiet -of_objects [get_cells -quiet "$inst/rst_sync_q_reg[*]"] -filter {REF_PIN_NAME == PRE || REF_PIN_NAME == CLR}]
}
